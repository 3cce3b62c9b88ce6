import { Client } from 'pg';
import { UnavailableError } from '../common/errors';
import { startTestHub, type TestHub } from '../../test/hub';
import { eventually } from '../../test/scheduler-fixtures';
import { CONFLICT_ATTEMPTS, UnitOfWork } from './unit-of-work';

// PostgreSQL ends one side of a deadlock; the hub runs that side's
// transaction again instead of answering 500.
describe('a transaction ended by a concurrent one (PostgreSQL)', () => {
  let hub: TestHub;
  let uow: UnitOfWork;
  let other: Client;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    hub = await startTestHub('postgres');
    uow = hub.app.get(UnitOfWork);
    other = new Client({ connectionString: hub.config.databaseUrl });
    await other.connect();
    for (const name of ['first', 'second']) {
      const res = await hub.call('POST', '/api/v1/projects', { body: { name, namespace: 'apps', source: { repository: `oci://127.0.0.1:5000/acme/${name}` } } });
      expect(res.status).toBe(201);
      ids[name] = (await other.query<{ id: string }>('SELECT id FROM projects WHERE name = $1', [name])).rows[0].id;
    }
  });
  afterAll(async () => {
    await other?.end();
    await hub?.close();
  });

  const lockProject = (id: string) => other.query('SELECT id FROM projects WHERE id = $1 FOR UPDATE', [id]);

  it('runs the deadlock victim again: it commits once, and only that run’s after-commit actions happen', async () => {
    await other.query('BEGIN');
    // the hub's side checks for the deadlock first (after the default second), so it is the one PostgreSQL ends
    await other.query(`SET LOCAL deadlock_timeout = '60s'`);
    await lockProject(ids.second);
    let attempts = 0;
    const ran: number[] = [];
    const done = uow.transaction(async (tx) => {
      const attempt = ++attempts;
      tx.afterCommit(() => ran.push(attempt));
      await tx.projects.lock(ids.first);
      await tx.projects.lock(ids.second);
      return attempt;
    });
    await eventually('the hub’s transaction to wait for the second Project', async () => {
      const { rows } = await other.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`);
      return rows[0].n > 0 ? true : undefined;
    }, 20_000);
    // closes the cycle; granted once PostgreSQL has ended the hub's first run
    await lockProject(ids.first);
    await other.query('COMMIT');
    expect(await done).toBe(2);
    expect(ran).toEqual([2]);
  });

  it(`gives up after ${CONFLICT_ATTEMPTS} runs with a 503-class error that keeps the database's as its cause`, async () => {
    let attempts = 0;
    const conflict = Object.assign(new Error('deadlock detected'), { driverError: { code: '40P01' } });
    const err = await uow
      .transaction(() => {
        attempts++;
        throw conflict;
      })
      .catch((e: unknown) => e);
    expect(attempts).toBe(CONFLICT_ATTEMPTS);
    expect(err).toBeInstanceOf(UnavailableError);
    expect((err as UnavailableError).message).toMatch(/conflict with concurrent ones \(nothing was changed\); retry/);
    expect((err as UnavailableError).cause).toBe(conflict);
  });

  it('does not run other failures again', async () => {
    await uow.transaction((tx) => tx.clusters.insert({ name: 'taken', groupName: 'g', labels: {}, mode: 'agent' }));
    let attempts = 0;
    const err = await uow
      .transaction(async (tx) => {
        attempts++;
        await tx.clusters.insert({ name: 'taken', groupName: 'g', labels: {}, mode: 'agent' });
      })
      .catch((e: unknown) => e);
    expect(attempts).toBe(1);
    expect((err as Error).message).toMatch(/already exists/);
  });
});
