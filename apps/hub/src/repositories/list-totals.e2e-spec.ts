import { DataSource } from 'typeorm';
import { DATABASE_KINDS, startTestHub, type TestHub } from '../../test/hub';
import { ListTotals } from './list-totals';

// List totals are remembered per replica with the membership version they
// were counted at; the database bumps that version at the commit of any
// change that could alter a total. These change membership through the API
// and behind the hub's back (plain SQL, as another replica would) and check
// that every total stays exact, and that an unchanged fleet is not counted.
describe.each(DATABASE_KINDS)('list totals on %s', (_label, kind) => {
  let hub: TestHub;
  let totals: ListTotals;
  let sql: DataSource;
  beforeAll(async () => {
    hub = await startTestHub(kind);
    totals = hub.app.get(ListTotals);
    sql = hub.app.get(DataSource);
    for (const [i, name] of ['lt-a', 'lt-b', 'lt-c'].entries()) {
      const body = { name, group: 'east', labels: { tier: i === 0 ? 'gold' : 'silver' }, mode: 'agent' };
      expect((await hub.call('POST', '/api/v1/clusters', { body })).status).toBe(201);
    }
    const project = { name: 'lt-app', namespace: 'apps', source: { repository: 'oci://127.0.0.1:5000/lt/app' }, targets: { labelSelector: { matchLabels: { tier: 'gold' } } } };
    expect((await hub.call('POST', '/api/v1/projects', { body: project })).status).toBe(201);
  });
  afterAll(() => hub?.close());

  const total = async (path: string) => {
    const res = await hub.call('GET', path);
    expect(res.status).toBe(200);
    return res.body.total as number;
  };
  const GOLD = `/api/v1/clusters?labelSelector=${encodeURIComponent('tier=gold')}`;
  const TARGETS = '/api/v1/projects/lt-app/targets';

  it('counts once and reuses the total while nothing changes', async () => {
    expect(await total('/api/v1/clusters')).toBe(3);
    const before = { ...totals.stats };
    expect(await total('/api/v1/clusters')).toBe(3);
    expect(await total('/api/v1/clusters')).toBe(3);
    expect(totals.stats).toEqual({ reused: before.reused + 2, counted: before.counted });
  });

  it('counts again after clusters are added, relabelled and removed through the API', async () => {
    expect(await total(GOLD)).toBe(1);
    expect((await hub.call('POST', '/api/v1/clusters', { body: { name: 'lt-d', group: 'west', labels: { tier: 'gold' }, mode: 'agent' } })).status).toBe(201);
    expect(await total('/api/v1/clusters')).toBe(4);
    expect(await total(GOLD)).toBe(2);
    expect(await total(TARGETS)).toBe(2);
    expect((await hub.call('PATCH', '/api/v1/clusters/lt-b', { body: { labels: { tier: 'gold' } } })).status).toBe(200);
    expect(await total(GOLD)).toBe(3);
    expect(await total(TARGETS)).toBe(3);
    expect(await total(`${TARGETS}?group=west`)).toBe(1);
    expect((await hub.call('DELETE', '/api/v1/clusters/lt-d?force=true')).status).toBe(204);
    expect(await total('/api/v1/clusters')).toBe(3);
    expect(await total(GOLD)).toBe(2);
    expect(await total(TARGETS)).toBe(2);
    expect(await total(`${TARGETS}?group=west`)).toBe(0);
  });

  it('stays exact when another writer changes clusters and Targets behind this replica', async () => {
    expect(await total('/api/v1/clusters')).toBe(3);
    expect(await total(TARGETS)).toBe(2);
    await sql.query(`INSERT INTO clusters (name, group_name, labels, mode) VALUES ('lt-x', 'west', '{"tier":"gold"}', 'agent')`);
    expect(await total('/api/v1/clusters')).toBe(4);
    expect(await total(GOLD)).toBe(3);
    await sql.query(`INSERT INTO targets (project_id, cluster_id) SELECT p.id, c.id FROM projects p, clusters c WHERE p.name = 'lt-app' AND c.name = 'lt-x'`);
    expect(await total(TARGETS)).toBe(3);
    await sql.query(`UPDATE clusters SET labels = '{"tier":"silver"}' WHERE name = 'lt-x'`);
    expect(await total(GOLD)).toBe(2);
    await sql.query(`DELETE FROM clusters WHERE name = 'lt-x'`);
    expect(await total('/api/v1/clusters')).toBe(3);
    expect(await total(TARGETS)).toBe(2);
  });

  it('counts Targets by phase every time, since runs change phases without a new version', async () => {
    expect(await total(`${TARGETS}?phase=Ready`)).toBe(0);
    await sql.query(`UPDATE targets SET phase = 'Ready' WHERE project_id = (SELECT id FROM projects WHERE name = 'lt-app')`);
    expect(await total(`${TARGETS}?phase=Ready`)).toBe(2);
    expect(await total(`${TARGETS}?phase=Pending`)).toBe(0);
  });

  it('keeps the fleet matrix total exact while clusters come, are relabelled and go behind this replica', async () => {
    const MATRIX = '/api/v1/fleet/matrix';
    const GOLD_MATRIX = `${MATRIX}?labelSelector=${encodeURIComponent('tier=gold')}`;
    const clusters = await total(MATRIX);
    const gold = await total(GOLD_MATRIX);
    const before = { ...totals.stats };
    expect(await total(GOLD_MATRIX)).toBe(gold);
    expect(totals.stats.reused).toBe(before.reused + 1);
    await sql.query(`INSERT INTO clusters (name, group_name, labels, mode) VALUES ('lt-m', 'west', '{"tier":"gold"}', 'agent')`);
    expect(await total(MATRIX)).toBe(clusters + 1);
    expect(await total(GOLD_MATRIX)).toBe(gold + 1);
    await sql.query(`UPDATE clusters SET labels = '{"tier":"silver"}' WHERE name = 'lt-m'`);
    expect(await total(GOLD_MATRIX)).toBe(gold);
    await sql.query(`DELETE FROM clusters WHERE name = 'lt-m'`);
    expect(await total(MATRIX)).toBe(clusters);
  });

  it('bumps the version once per transaction, however many rows it changed', async () => {
    const version = async () => Number((await sql.query(`SELECT version FROM list_versions WHERE name = 'membership'`))[0].version);
    const before = await version();
    await sql.transaction(async (tx) => {
      await tx.query(`INSERT INTO clusters (name, group_name, labels, mode) SELECT 'lt-bulk-' || i, 'bulk', '{}', 'agent' FROM generate_series(1, 20) i`);
      await tx.query(`DELETE FROM clusters WHERE group_name = 'bulk' AND name > 'lt-bulk-5'`);
    });
    expect(await version()).toBe(before + 1);
    await sql.query(`UPDATE clusters SET status_message = 'checked' WHERE group_name = 'bulk'`);
    expect(await version()).toBe(before + 1);
  });
});
