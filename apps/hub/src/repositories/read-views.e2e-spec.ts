import { DataSource } from 'typeorm';
import { DATABASE_KINDS, startTestHub, type TestHub } from '../../test/hub';

// The list and get routes read their views in one hand-written statement each
// (the page, its total and the owner's existence together). These pin what
// that must keep: exact totals beside any page, stable order, the API's time
// format, and 404s that name what is missing.
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const CLUSTERS = ['rv-a', 'rv-b', 'rv-c', 'rv-d', 'rv-e'];

describe.each(DATABASE_KINDS)('read views on %s', (_label, kind) => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub(kind);
    for (const [i, name] of CLUSTERS.entries()) {
      const body = { name, group: i < 2 ? 'east' : 'west', labels: { tier: i % 2 === 0 ? 'gold' : 'silver' }, mode: 'agent' };
      expect((await hub.call('POST', '/api/v1/clusters', { body })).status).toBe(201);
    }
    for (const name of ['rv-one', 'rv-two', 'rv-three']) {
      const body = { name, namespace: 'apps', source: { repository: 'oci://127.0.0.1:5000/rv/app' }, targets: { groups: ['east', 'west'] } };
      expect((await hub.call('POST', '/api/v1/projects', { body })).status).toBe(201);
    }
  });
  afterAll(() => hub?.close());

  /** Every item of a list, page by page, checking each page's total. */
  async function walk(path: string, size: number): Promise<{ names: string[]; totals: number[] }> {
    const names: string[] = [];
    const totals: number[] = [];
    for (let offset = 0; ; offset += size) {
      const res = await hub.call('GET', `${path}${path.includes('?') ? '&' : '?'}limit=${size}&offset=${offset}`);
      expect(res.status).toBe(200);
      totals.push(res.body.total);
      if (res.body.items.length === 0) return { names, totals };
      names.push(...res.body.items.map((i: { name?: string; cluster?: string }) => i.name ?? i.cluster));
    }
  }

  it('pages clusters, Projects and Targets in name order, with the exact total beside every page, also past the end', async () => {
    const clusters = await walk('/api/v1/clusters', 2);
    expect(clusters.names).toEqual(CLUSTERS);
    expect(new Set(clusters.totals)).toEqual(new Set([5]));
    const projects = await walk('/api/v1/projects', 2);
    expect(projects.names).toEqual(['rv-one', 'rv-three', 'rv-two']);
    expect(new Set(projects.totals)).toEqual(new Set([3]));
    const targets = await walk('/api/v1/projects/rv-two/targets', 2);
    expect(targets.names).toEqual(CLUSTERS);
    expect(new Set(targets.totals)).toEqual(new Set([5]));
  });

  it('counts what the filters select, not the page', async () => {
    const gold = await walk(`/api/v1/clusters?labelSelector=${encodeURIComponent('tier=gold')}`, 1);
    expect(gold.names).toEqual(['rv-a', 'rv-c', 'rv-e']);
    expect(new Set(gold.totals)).toEqual(new Set([3]));
    const notGold = await walk(`/api/v1/clusters?labelSelector=${encodeURIComponent('tier notin (gold)')}`, 1);
    expect(notGold.names).toEqual(['rv-b', 'rv-d']);
    const westGold = await walk(`/api/v1/projects/rv-one/targets?group=west&labelSelector=${encodeURIComponent('tier in (gold)')}`, 1);
    expect(westGold.names).toEqual(['rv-c', 'rv-e']);
    expect(new Set(westGold.totals)).toEqual(new Set([2]));
    expect((await hub.call('GET', '/api/v1/projects/rv-one/targets?phase=Ready')).body).toEqual({ items: [], total: 0, limit: 50, offset: 0 });
  });

  it('writes times as Date#toISOString does, and counts Targets per cluster and by phase', async () => {
    const cluster = (await hub.call('GET', '/api/v1/clusters/rv-c')).body;
    expect(cluster).toMatchObject({ targets: 3, credentials: null, endpoint: null, status: { reachable: null, lastChecked: null, warnings: [] } });
    const project = (await hub.call('GET', '/api/v1/projects/rv-one')).body;
    expect(project.status).toEqual({ conditions: [], targets: 5, ready: 0, unhealthy: 0, phases: { Pending: 5 }, deleting: false });
    const target = (await hub.call('GET', '/api/v1/projects/rv-one/targets/rv-c')).body;
    // an agent cluster's Target runs when its agent says: this one has reported nothing yet
    expect(target.nextRunAt).toBeNull();
    const reported = '2026-11-27T10:00:00.000Z';
    await hub.app.get(DataSource).query(`UPDATE targets SET agent_next_run_at = $1`, [reported]);
    expect((await hub.call('GET', '/api/v1/projects/rv-one/targets/rv-c')).body.nextRunAt).toBe(reported);
    for (const time of [cluster.createdAt, cluster.updatedAt, project.createdAt, project.updatedAt]) {
      expect(time).toMatch(ISO_MS);
      expect(new Date(time).toISOString()).toBe(time);
    }
    const events = (await hub.call('GET', '/api/v1/projects/rv-one/events')).body;
    expect(events.items.length).toBeGreaterThan(0);
    for (const e of events.items) expect(new Date(e.time).toISOString()).toBe(e.time);
  });

  it('answers 404 naming the missing Project, or the missing Target of an existing one', async () => {
    for (const path of ['/api/v1/projects/rv-nope/targets', '/api/v1/projects/rv-nope/targets/rv-a', '/api/v1/projects/rv-nope/targets/rv-a/runs', '/api/v1/projects/rv-nope/events']) {
      const res = await hub.call('GET', path);
      expect(res.status).toBe(404);
      expect(res.body.message).toContain('rv-nope');
    }
    for (const path of ['/api/v1/projects/rv-one/targets/rv-zz', '/api/v1/projects/rv-one/targets/rv-zz/runs']) {
      const res = await hub.call('GET', path);
      expect(res.status).toBe(404);
      expect(res.body.message).toContain('rv-one/rv-zz');
    }
    expect((await hub.call('GET', '/api/v1/projects/rv-one/targets/rv-a/runs')).body).toEqual({ items: [], limit: 50, continue: null });
  });

  it("orders Targets by their cluster's name as the cluster has it now", async () => {
    // the API cannot rename a cluster; a rename by hand reaches the Targets' copy of the name
    const db = hub.app.get(DataSource);
    await db.query(`UPDATE clusters SET name = 'rv-0' WHERE name = 'rv-e'`);
    try {
      expect((await walk('/api/v1/projects/rv-two/targets', 2)).names).toEqual(['rv-0', 'rv-a', 'rv-b', 'rv-c', 'rv-d']);
      expect((await hub.call('GET', '/api/v1/projects/rv-two/targets/rv-0')).body.cluster).toBe('rv-0');
    } finally {
      await db.query(`UPDATE clusters SET name = 'rv-e' WHERE name = 'rv-0'`);
    }
    expect((await walk('/api/v1/projects/rv-two/targets', 5)).names).toEqual(CLUSTERS);
  });
});
