import { DataSource } from 'typeorm';
import { startTestHub, type TestHub } from '../../test/hub';
import { AssignmentDispatchRepository } from './assignment-dispatch.repository';

// The question an idle pass over every stream asks before it reads any Target.
describe('whether any agent Target is due (PostgreSQL)', () => {
  let hub: TestHub;
  let ds: DataSource;
  const anyDue = () => new AssignmentDispatchRepository(ds.manager).anyDue();
  const dueIn = (cluster: string, at: string) =>
    ds.query(`UPDATE targets t SET next_run_at = ${at} FROM clusters c WHERE c.id = t.cluster_id AND c.name = $1`, [cluster]);

  beforeAll(async () => {
    hub = await startTestHub('postgres'); // no scheduler: the rows stay as the suite sets them
    ds = hub.app.get(DataSource);
    expect((await hub.call('POST', '/api/v1/clusters', { body: { name: 'spoke', group: 'due', mode: 'agent' } })).status).toBe(201);
    // a push cluster without a check: only its mode matters here
    await ds.query(`INSERT INTO clusters (name, group_name, labels, mode, server) VALUES ('pushed', 'due', '{}', 'push', 'https://127.0.0.1:1')`);
    const project = { name: 'due', namespace: 'apps', source: { repository: 'oci://127.0.0.1:5000/acme/due' }, targets: { groups: ['due'] } };
    expect((await hub.call('POST', '/api/v1/projects', { body: project })).status).toBe(201);
    await dueIn('spoke', `'infinity'`);
    await dueIn('pushed', `'infinity'`);
  });
  afterAll(() => hub?.close());

  it('is no while nothing is due', async () => {
    expect(await anyDue()).toBe(false);
  });

  it('is yes once an agent Target is due', async () => {
    await dueIn('spoke', `now() - interval '1 second'`);
    expect(await anyDue()).toBe(true);
    await dueIn('spoke', `now() + interval '1 hour'`);
    expect(await anyDue()).toBe(false);
  });

  it('leaves due push Targets to the scheduler', async () => {
    await dueIn('pushed', `now() - interval '1 second'`);
    expect(await ds.query(`SELECT count(*)::int AS n FROM targets WHERE next_run_at <= now()`)).toEqual([{ n: 1 }]);
    expect(await anyDue()).toBe(false);
  });
});
