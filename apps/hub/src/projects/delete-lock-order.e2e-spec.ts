import { Client } from 'pg';
import { startTestHub, type TestHub } from '../../test/hub';
import { eventually } from '../../test/scheduler-fixtures';

// A run's batched result write locks its Target, then records events that
// reference the Project. Deleting the Project at that moment must wait for
// the batch, not lock the row the batch needs and then wait for its Target:
// PostgreSQL would end one of the two as a deadlock (a 500, or a lost run
// result).
describe('deleting a Project while a run writes its result (PostgreSQL)', () => {
  let hub: TestHub;
  let batch: Client;
  beforeAll(async () => {
    hub = await startTestHub('postgres');
    batch = new Client({ connectionString: hub.config.databaseUrl });
    await batch.connect();
  });
  afterAll(async () => {
    await batch?.end();
    await hub?.close();
  });

  /** Resolves once a hub transaction waits for a lock (the batch's): the positive signal, polled. */
  const blocked = (what: string) =>
    eventually(`${what} to wait for the batch's lock`, async () => {
      const { rows } = await batch.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`);
      return rows[0].n > 0 ? true : undefined;
    }, 20_000);

  /** As a batch does: the Target locked, then an event of its Project written, in one transaction left open until `commit`. */
  const batchHolding = async (project: string, cluster: string) => {
    await batch.query('BEGIN');
    const { rows } = await batch.query<{ id: string; project_id: string }>(
      'SELECT t.id, t.project_id FROM targets t JOIN projects p ON p.id = t.project_id JOIN clusters c ON c.id = t.cluster_id WHERE p.name = $1 AND c.name = $2 FOR UPDATE OF t',
      [project, cluster],
    );
    expect(rows).toHaveLength(1);
    return {
      writeEvent: () => batch.query(`INSERT INTO events (project_id, cluster_name, type, reason, message) VALUES ($1, $2, 'Normal', 'Applied', 'run result')`, [rows[0].project_id, cluster]),
      commit: () => batch.query('COMMIT'),
    };
  };

  it('an orphaning Project delete waits for the batch, and both succeed', async () => {
    for (const name of ['a-1', 'a-2']) expect((await hub.call('POST', '/api/v1/clusters', { body: { name, group: 'lock', mode: 'agent' } })).status).toBe(201);
    expect((await hub.call('POST', '/api/v1/projects', { body: { name: 'locked', namespace: 'apps', source: { repository: 'oci://127.0.0.1:5000/acme/app' }, targets: { groups: ['lock'] } } })).status).toBe(201);
    const held = await batchHolding('locked', 'a-2');
    const deleting = hub.call('DELETE', '/api/v1/projects/locked?instances=orphan');
    await blocked('the Project delete');
    // before the fix, this insert and the delete's cascade waited for each other
    await expect(held.writeEvent()).resolves.toMatchObject({ rowCount: 1 });
    await held.commit();
    expect(await deleting).toMatchObject({ status: 200, body: { state: 'deleted' } });
    expect((await hub.call('GET', '/api/v1/projects/locked')).status).toBe(404);
  });
});
