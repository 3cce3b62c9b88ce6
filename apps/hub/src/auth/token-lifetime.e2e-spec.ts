import { statSync } from 'node:fs';
import { join } from 'node:path';
import { FixedClock } from '../common/clock';
import { defaultAuthConfig } from '../config/hub-config';
import { launch, startTestHub, type TestHub } from '../../test/hub';
import { ADMIN_TOKEN_FILE } from './admin-token-file';

const NOW = '2026-03-01T12:00:00.000Z';
const HOUR = 3600_000;

describe('tokens that expire', () => {
  const clock = new FixedClock(NOW);
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub('postgres', {}, { clock });
  });
  afterAll(() => hub?.close());

  it('refuses a token once its expiry passes, even right after the token cache took it', async () => {
    clock.set(NOW);
    const expiresAt = new Date(Date.parse(NOW) + HOUR).toISOString();
    const created = await hub.call('POST', '/api/v1/tokens', { body: { name: 'ci-short', role: 'viewer', expiresAt } });
    expect(created.status).toBe(201);
    expect(created.body.expiresAt).toBe(expiresAt);
    const listed = await hub.call('GET', '/api/v1/tokens');
    expect(listed.body.items.find((t: { id: string }) => t.id === created.body.id).expiresAt).toBe(expiresAt);

    clock.advance(HOUR - 1); // the last millisecond it holds: this answer puts it in the cache
    const last = await hub.call('GET', '/api/v1/session', { token: created.body.token });
    // the session says when it ends; a static token is no single sign-on
    expect(last).toMatchObject({ status: 200, body: { name: 'ci-short', expiresAt } });
    expect(last.body.singleSignOn).toBeUndefined();
    clock.advance(1);
    const expired = await hub.call('GET', '/api/v1/session', { token: created.body.token });
    expect(expired.status).toBe(401);
    expect(expired.body.message).toMatch(/^token expired: "ci-short" expired at 2026-03-01T13:00:00.000Z/);
    // a token without expiry is untouched by time
    clock.advance(1000 * HOUR);
    expect((await hub.call('GET', '/api/v1/session')).status).toBe(200);
  });

  it('refuses an expiry in the past or not a time, naming the field', async () => {
    clock.set(NOW);
    const past = await hub.call('POST', '/api/v1/tokens', { body: { name: 'late', role: 'viewer', expiresAt: '2026-03-01T11:59:59Z' } });
    expect(past.status).toBe(400);
    expect(past.body.message).toMatch(/^expiresAt: .* is not in the future/);
    const junk = await hub.call('POST', '/api/v1/tokens', { body: { name: 'late', role: 'viewer', expiresAt: 'tomorrow' } });
    expect(junk.status).toBe(400);
    expect(junk.body.problems).toEqual(['expiresAt: must be an ISO 8601 time such as 2027-01-31T00:00:00Z']);
    const names = (await hub.call('GET', '/api/v1/tokens')).body.items.map((t: { name: string }) => t.name);
    expect(names).not.toContain('late');
  });
});

describe('a maximum token lifetime (FLOTILLA_TOKEN_MAX_LIFETIME)', () => {
  const clock = new FixedClock(NOW);
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub('postgres', { auth: { ...defaultAuthConfig(), failureLimit: 0, tokenMaxLifetimeMs: 24 * HOUR } }, { clock });
  });
  afterAll(() => hub?.close());

  it('refuses tokens without an expiry or past the maximum, and creates nothing', async () => {
    const before = (await hub.call('GET', '/api/v1/tokens')).body.total;
    const missing = await hub.call('POST', '/api/v1/tokens', { body: { name: 'forever', role: 'operator' } });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toMatch(/^expiresAt: required; .*FLOTILLA_TOKEN_MAX_LIFETIME/);
    const tooLong = await hub.call('POST', '/api/v1/tokens', { body: { name: 'forever', role: 'operator', expiresAt: '2026-03-02T12:00:01Z' } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.message).toMatch(/^expiresAt: .*beyond this hub's maximum token lifetime/);
    expect((await hub.call('GET', '/api/v1/tokens')).body.total).toBe(before);
    const ok = await hub.call('POST', '/api/v1/tokens', { body: { name: 'day', role: 'operator', expiresAt: '2026-03-02T12:00:00Z' } });
    expect(ok.status).toBe(201);
  });
});

describe('FLOTILLA_ADMIN_TOKEN', () => {
  it('stops working when the variable changes or is unset; a new first token then goes to the data dir', async () => {
    const first = await startTestHub('postgres', { adminToken: 'adm_first_0123456789abcdef' });
    try {
      expect((await first.call('GET', '/api/v1/tokens')).status).toBe(200);
      await first.stop();

      const second = await launch({ ...first.config, adminToken: 'adm_second_0123456789abcdef' });
      try {
        expect((await second.call('GET', '/api/v1/tokens', { token: 'adm_first_0123456789abcdef' })).status).toBe(401);
        const list = await second.call('GET', '/api/v1/tokens');
        expect(list.status).toBe(200);
        expect(list.body.items.map((t: { revokedAt: string | null }) => t.revokedAt !== null)).toEqual([true, false]);
      } finally {
        await second.stop();
      }

      const third = await launch({ ...first.config, adminToken: undefined });
      try {
        expect((await third.call('GET', '/api/v1/tokens', { token: 'adm_second_0123456789abcdef' })).status).toBe(401);
        // no usable admin token left: one is generated into the data dir (the helper reads it from there)
        expect(third.adminToken).toMatch(/^flt_/);
        expect((await third.call('GET', '/api/v1/tokens')).status).toBe(200);
      } finally {
        await third.stop();
      }
    } finally {
      await first.close();
    }
  });
});

describe('the generated first admin token', () => {
  it('goes to a file only the hub user reads, and to the terminal only when one watches', async () => {
    const quiet = await startTestHub('postgres', { adminToken: undefined });
    try {
      const file = join(quiet.config.dataDir, ADMIN_TOKEN_FILE);
      expect(quiet.announced).toEqual([`first admin token written to ${file} (readable by this user only)`]);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(quiet.adminToken).toMatch(/^flt_/);
      expect((await quiet.call('GET', '/api/v1/tokens')).status).toBe(200);
      expect(quiet.logs.join('\n')).not.toContain(quiet.adminToken);
    } finally {
      await quiet.close();
    }
    const watched = await startTestHub('postgres', { adminToken: undefined }, { interactive: true });
    try {
      expect(watched.announced[1]).toBe(`first admin token (shown only now; keep it): ${watched.adminToken}`);
      expect(watched.logs.join('\n')).not.toContain(watched.adminToken);
    } finally {
      await watched.close();
    }
  });
});

describe('failed authentications per source address', () => {
  const clock = new FixedClock(NOW);
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub('postgres', { auth: { ...defaultAuthConfig(), failureLimit: 3, failureWindowMs: 60_000 } }, { clock });
  });
  afterAll(() => hub?.close());

  it('answer 429 with Retry-After past the limit, for every token from that source, until the window ends', async () => {
    // no token at all is no guess: never counted
    for (let i = 0; i < 5; i++) expect((await hub.call('GET', '/api/v1/tokens', { token: null })).status).toBe(401);
    for (let i = 0; i < 3; i++) expect((await hub.call('GET', '/api/v1/tokens', { token: `flt_guess${i}` })).status).toBe(401);
    clock.advance(10_000);
    const res = await fetch(`${hub.url}/api/v1/tokens`, { headers: { authorization: 'Bearer flt_guess4' } });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('50');
    expect(((await res.json()) as { message: string }).message).toMatch(/^too many failed authentications from \S+; retry in 50 s$/);
    // a right guess would be an oracle: the admin token from this source waits too
    expect((await hub.call('GET', '/api/v1/tokens')).status).toBe(429);
    clock.advance(50_000);
    expect((await hub.call('GET', '/api/v1/tokens')).status).toBe(200);
  });
});

describe('/metrics behind FLOTILLA_METRICS_TOKEN', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub('postgres', { auth: { ...defaultAuthConfig(), failureLimit: 0, metricsToken: 'scrape-0123456789abcdef' } });
  });
  afterAll(() => hub?.close());

  it('answers 401 without the token or with another one (an API admin token too), and the metrics with it', async () => {
    const none = await hub.call('GET', '/metrics', { token: null });
    expect(none.status).toBe(401);
    expect(none.body.message).toMatch(/FLOTILLA_METRICS_TOKEN/);
    expect(none.text).not.toContain('flotilla_hub_http_requests_total');
    expect((await hub.call('GET', '/metrics', { token: 'scrape-0123456789abcdeX' })).status).toBe(401);
    expect((await hub.call('GET', '/metrics')).status).toBe(401);
    const ok = await hub.call('GET', '/metrics', { token: 'scrape-0123456789abcdef' });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('flotilla_hub_http_requests_total');
  });
});
