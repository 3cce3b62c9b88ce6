import { FixedClock } from '../common/clock';
import { launch, startTestHub, type TestHub } from '../../test/hub';
import { openStream } from '../../test/live-stream';
import { FleetStream } from './fleet-stream';

const NOW = '2026-03-01T12:00:00.000Z';


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
