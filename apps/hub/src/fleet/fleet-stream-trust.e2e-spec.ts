import { FixedClock } from '../common/clock';
import { launch, startTestHub, type TestHub } from '../../test/hub';
import { FleetStream } from './fleet-stream';

const NOW = '2026-03-01T12:00:00.000Z';

/** Opens the live stream with `token` and reads it until it says hello. */
async function openStream(url: string, token: string): Promise<{ text: () => string; ended: Promise<string> }> {
  const res = await fetch(`${url}/api/v1/fleet/events`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  let hello!: () => void;
  const greeted = new Promise<void>((r) => (hello = r));
  // resolves with everything the stream said once the hub ends it
  const ended = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return text;
      text += value;
      if (text.includes('event: hello')) hello();
    }
  })();
  await Promise.race([greeted, ended]);
  return { text: () => text, ended };
}

describe('a live stream lives no longer than its token', () => {
  const clock = new FixedClock(NOW);
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub('postgres', {}, { clock });
  });
  afterAll(() => hub?.close());

  const viewerToken = async (name: string, expiresAt?: string) => {
    const res = await hub.call('POST', '/api/v1/tokens', { body: { name, role: 'viewer', expiresAt } });
    expect(res.status).toBe(201);
    return res.body as { id: string; token: string };
  };

  it('ends at once when the token is revoked on this replica', async () => {
    const t = await viewerToken('wall-1');
    const stream = await openStream(hub.url, t.token);
    const other = await openStream(hub.url, hub.adminToken);
    expect((await hub.call('DELETE', `/api/v1/tokens/${t.id}`)).status).toBe(200);
    expect(await stream.ended).toContain('event: unauthorized\ndata: {"reason":"token revoked"}');
    // another token's stream stays
    expect(hub.app.get(FleetStream).size).toBe(1);
    expect(other.text()).not.toContain('unauthorized');
  });

  it('ends when the token expires', async () => {
    clock.set(NOW);
    const t = await viewerToken('wall-2', '2026-03-01T13:00:00.000Z');
    const stream = await openStream(hub.url, t.token);
    clock.set('2026-03-01T13:00:00.000Z');
    await hub.app.get(FleetStream).tick();
    expect(await stream.ended).toContain('event: unauthorized\ndata: {"reason":"token expired"}');
  });

  it('ends on another replica sharing the database when the token is revoked here', async () => {
    const replica = await launch(hub.config);
    try {
      const t = await viewerToken('wall-3');
      const stream = await openStream(replica.url, t.token);
      expect((await hub.call('DELETE', `/api/v1/tokens/${t.id}`)).status).toBe(200);
      expect(await stream.ended).toContain('event: unauthorized');
      expect((await replica.call('GET', '/api/v1/session', { token: t.token })).status).toBe(401);
    } finally {
      await replica.stop();
    }
  });
});
