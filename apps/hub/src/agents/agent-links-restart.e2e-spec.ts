import { DataSource } from 'typeorm';
import { launch, startTestHub, type TestHub } from '../../test/hub';
import { defaultAgentServerConfig } from '../config/hub-config';

// The agents' connection state a hub finds at start. A replica forgets the
// streams it held itself (it may have crashed); a hub on the embedded
// database is the only one there, so every link marked connected belongs to
// a stream that is gone, such as those in a copy of FLOTILLA_DATA_DIR
// restored from a backup, whose replica names are another process's.

jest.setTimeout(60_000);

describe('agent links at the start of a hub on the embedded database', () => {
  let hub: TestHub;
  afterAll(() => hub?.close());

  it('shows an agent connected in the files it opened as disconnected', async () => {
    hub = await startTestHub('pglite', { agents: { ...defaultAgentServerConfig('127.0.0.1'), port: 0 } });
    expect((await hub.call('POST', '/api/v1/clusters', { body: { name: 'edge-1', group: 'edge', mode: 'agent' } })).status).toBe(201);
    // as a backup taken while the agent was connected to another process holds it
    await hub.app.get(DataSource).query(
      `UPDATE agent_links SET connected = true, replica = 'a-hub-that-made-the-backup', status_since = now() - interval '1 hour', last_heartbeat_at = now() - interval '1 hour', agent_version = '0.1.0'
       WHERE cluster_id = (SELECT id FROM clusters WHERE name = 'edge-1')`,
    );
    expect((await hub.call('GET', '/api/v1/clusters/edge-1')).body.agent.connected).toBe(true);
    const startedAt = Date.now();
    await hub.stop();

    const restarted = await launch(hub.config);
    try {
      const agent = (await restarted.call('GET', '/api/v1/clusters/edge-1')).body.agent;
      expect(agent).toMatchObject({ connected: false, version: '0.1.0' });
      // the time it was marked, not the hour-old one of the copy
      expect(Date.parse(agent.since)).toBeGreaterThan(startedAt - 30 * 60_000);
    } finally {
      await restarted.stop();
    }
  });
});
