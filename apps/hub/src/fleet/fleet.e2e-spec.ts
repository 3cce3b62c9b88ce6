import { DataSource } from 'typeorm';
import { DATABASE_KINDS, startTestHub, type TestHub } from '../../test/hub';
import { FLEET_STATES } from './fleet-state';
import { FleetStream } from './fleet-stream';
import { StateCountsDto } from './fleet.dto';

const source = { repository: 'oci://127.0.0.1:5000/acme/platform' };
const condition = (type: string, status: string) => ({ type, status, reason: 'R', message: 'x', lastTransitionTime: '2026-01-01T00:00:00.000Z' });
const stalled = [condition('Stalled', 'True')];
const healthy = [condition('Ready', 'True'), condition('Healthy', 'True')];
// applied, but its Deployment never became available: never counted as Ready
const unhealthy = [condition('Ready', 'True'), condition('Healthy', 'False')];

describe.each(DATABASE_KINDS)('fleet API on %s', (_label, kind) => {
  let hub: TestHub;
  let db: DataSource;
  beforeAll(async () => {
    hub = await startTestHub(kind);
    db = hub.app.get(DataSource);
    for (const [name, group, labels] of [
      ['eu-1', 'production', { region: 'eu' }],
      ['eu-2', 'production', { region: 'eu' }],
      ['us-1', 'production', { region: 'us' }],
      ['stage-1', 'staging', { region: 'eu' }],
      ['lab-1', 'lab', {}],
    ] as const) {
      expect((await hub.call('POST', '/api/v1/clusters', { body: { name, group, labels, mode: 'agent' } })).status).toBe(201);
    }
    for (const [name, groups] of [['web', ['production', 'staging']], ['db', ['production']]] as const) {
      expect((await hub.call('POST', '/api/v1/projects', { body: { name, namespace: 'apps', source, targets: { groups } } })).status).toBe(201);
    }
    const set = (project: string, cluster: string, phase: string, conditions: unknown[] = [], revision: string | null = null) =>
      db.query(
        `UPDATE targets t SET phase = $3, conditions = $4::jsonb, last_applied_revision = $5 FROM projects p, clusters c
         WHERE p.id = t.project_id AND c.id = t.cluster_id AND p.name = $1 AND c.name = $2`,
        [project, cluster, phase, JSON.stringify(conditions), revision],
      );
    await set('web', 'eu-1', 'Ready', healthy, 'latest@sha256:aa');
    await set('web', 'eu-2', 'Failed', stalled);
    await set('web', 'us-1', 'Failed');
    await set('db', 'eu-1', 'Suspended');
    await set('db', 'us-1', 'Ready', unhealthy, 'latest@sha256:bb');
    await db.query(`UPDATE clusters SET reachable = false WHERE name = 'eu-2'`);
    // every agent connected but stage-1's: its Target's last report is stale, whatever it said
    await db.query(`UPDATE agent_links al SET connected = true, status_since = now() FROM clusters c WHERE c.id = al.cluster_id AND c.name <> 'stage-1'`);
  });
  afterAll(() => hub?.close());

  it('counts clusters and Targets by group and state, folding phases into the page\'s states', async () => {
    const res = await hub.call('GET', '/api/v1/fleet/summary');
    expect(res.status).toBe(200);
    const zero = Object.fromEntries(FLEET_STATES.map((s) => [s, 0]));
    expect(res.body).toEqual({
      clusters: 5,
      projects: 2,
      states: [...FLEET_STATES],
      targets: { ...zero, Ready: 1, Unhealthy: 1, Stalled: 1, Failed: 1, Suspended: 1, Progressing: 1, Stale: 1 },
      groups: [
        { group: 'lab', clusters: 1, unreachable: 0, targets: zero },
        { group: 'production', clusters: 3, unreachable: 1, targets: { ...zero, Ready: 1, Unhealthy: 1, Stalled: 1, Failed: 1, Suspended: 1, Progressing: 1 } },
        { group: 'staging', clusters: 1, unreachable: 0, targets: { ...zero, Stale: 1 } },
      ],
    });
  });

  it("counts a Project's Ready Targets that are not healthy apart, as the fleet state does", async () => {
    expect((await hub.call('GET', '/api/v1/projects/db')).body.status).toMatchObject({ targets: 3, ready: 1, unhealthy: 1, phases: { Ready: 1, Suspended: 1 } });
    expect((await hub.call('GET', '/api/v1/projects/web')).body.status).toMatchObject({ ready: 1, unhealthy: 0 });
    const listed = (await hub.call('GET', '/api/v1/projects')).body.items;
    expect(listed.map((p: { name: string; status: { unhealthy: number } }) => [p.name, p.status.unhealthy])).toEqual([['db', 1], ['web', 0]]);
  });

  it('documents one count per state', () => {
    const documented = Object.keys(Reflect.getMetadata('swagger/apiModelPropertiesArray', StateCountsDto.prototype) as string[]).length;
    expect((Reflect.getMetadata('swagger/apiModelPropertiesArray', StateCountsDto.prototype) as string[]).map((p) => p.slice(1)).sort()).toEqual([...FLEET_STATES].sort());
    expect(documented).toBe(FLEET_STATES.length);
  });

  it('pages clusters × Projects, filtered by name, group and labels', async () => {
    const all = await hub.call('GET', '/api/v1/fleet/matrix?limit=2');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ projects: ['db', 'web'], total: 5, limit: 2, offset: 0 });
    expect(all.body.items.map((r: { cluster: string }) => r.cluster)).toEqual(['lab-1', 'eu-1']);
    expect(all.body.items[0].cells).toEqual({});
    expect(all.body.items[1]).toMatchObject({
      cluster: 'eu-1',
      group: 'production',
      mode: 'agent',
      labels: { region: 'eu' },
      cells: { web: { state: 'Ready', revision: 'latest@sha256:aa' }, db: { state: 'Suspended', revision: null } },
    });
    const byName = await hub.call('GET', '/api/v1/fleet/matrix?name=eu-');
    expect(byName.body.items.map((r: { cluster: string }) => r.cluster)).toEqual(['eu-1', 'eu-2']);
    expect(byName.body.items[1].cells.web.state).toBe('Stalled');
    const byLabels = await hub.call('GET', '/api/v1/fleet/matrix?group=production&labelSelector=region%3Dus');
    expect(byLabels.body).toMatchObject({ total: 1, items: [{ cluster: 'us-1', cells: { web: { state: 'Failed' }, db: { state: 'Unhealthy', revision: 'latest@sha256:bb' } } }] });
    const oneColumn = await hub.call('GET', '/api/v1/fleet/matrix?projects=1&name=eu-1');
    expect(oneColumn.body).toMatchObject({ projects: ['db'], items: [{ cells: { db: { state: 'Suspended' } } }] });
    expect(oneColumn.body.items[0].cells.web).toBeUndefined();
    // LIKE's wildcards in a name filter are refused by the pattern, never interpreted
    expect((await hub.call('GET', '/api/v1/fleet/matrix?name=%25')).status).toBe(400);
    expect((await hub.call('GET', '/api/v1/fleet/matrix?labelSelector=%3D%3D')).status).toBe(400);
    expect((await hub.call('GET', '/api/v1/fleet/matrix?projects=0')).status).toBe(400);
    expect((await hub.call('GET', '/api/v1/fleet/matrix?offset=100')).body).toMatchObject({ total: 5, items: [] });
  });

  it('tells a token its name and role', async () => {
    const viewer = (await hub.call('POST', '/api/v1/tokens', { body: { name: 'wall-screen', role: 'viewer' } })).body.token;
    expect((await hub.call('GET', '/api/v1/session', { token: viewer })).body).toEqual({ name: 'wall-screen', role: 'viewer' });
    expect((await hub.call('GET', '/api/v1/session', { token: null })).status).toBe(401);
  });

  it('refuses the aggregates and the stream without a token', async () => {
    expect((await hub.call('GET', '/api/v1/fleet/summary', { token: null })).status).toBe(401);
    expect((await hub.call('GET', '/api/v1/fleet/matrix', { token: 'flt_wrong' })).status).toBe(401);
    expect((await fetch(`${hub.url}/api/v1/fleet/events`)).status).toBe(401);
  });

  it('streams hello, then a change when a Target is written, and refuses streams past the limit', async () => {
    const stream = hub.app.get(FleetStream);
    const abort = new AbortController();
    const res = await fetch(`${hub.url}/api/v1/fleet/events`, { headers: { authorization: `Bearer ${hub.adminToken}` }, signal: abort.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    const until = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before "${needle}": ${text}`);
        text += value;
      }
    };
    await until('event: hello');
    await stream.tick(); // the first poll takes the mark
    expect(text).not.toContain('event: change');
    await db.query(`UPDATE targets SET phase = 'Ready'`);
    await stream.tick();
    await until('event: change');

    stream.maxStreams = 1;
    const refused = await fetch(`${hub.url}/api/v1/fleet/events`, { headers: { authorization: `Bearer ${hub.adminToken}` } });
    expect(refused.status).toBe(503);
    abort.abort();
    await reader.cancel().catch(() => undefined);
  });
});

describe('anonymous viewers (FLOTILLA_ANONYMOUS_VIEWER=on)', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub('pglite', { anonymousViewer: true });
  });
  afterAll(() => hub?.close());

  it('lets requests without a token read, and asks them for one to write', async () => {
    expect((await hub.call('GET', '/api/v1/session', { token: null })).body).toEqual({ name: 'anonymous', role: 'viewer' });
    expect((await hub.call('GET', '/api/v1/fleet/summary', { token: null })).status).toBe(200);
    const write = await hub.call('POST', '/api/v1/clusters', { token: null, body: { name: 'x', mode: 'agent' } });
    expect(write.status).toBe(401);
    // the body is never read: a malformed one gets the same answer
    expect((await hub.call('POST', '/api/v1/clusters', { token: null, rawBody: '{' })).status).toBe(401);
    expect((await hub.call('GET', '/api/v1/tokens', { token: null })).status).toBe(401);
    // a wrong token is still wrong: anonymous is for requests without one
    expect((await hub.call('GET', '/api/v1/fleet/summary', { token: 'flt_wrong' })).status).toBe(401);
    expect((await hub.call('GET', '/api/v1/clusters')).status).toBe(200);
    // where anyone may read everything, /metrics too
    expect((await hub.call('GET', '/metrics', { token: null })).status).toBe(200);
  });
});
