import { DataSource } from 'typeorm';
import { eventually } from '../../test/scheduler-fixtures';
import { DATABASE_KINDS, startTestHub, type TestHub } from '../../test/hub';

// Issue 40, tenants: two teams on one hub (push and agent clusters), each
// seeing and changing only its own Projects, Targets and clusters, refused
// with a 403 that names the rule wherever it reaches beyond its tenant.

const repoA = 'oci://127.0.0.1:5000/acme/team-a';
const repoB = 'oci://127.0.0.1:5000/acme/team-b';

describe.each(DATABASE_KINDS)('tenants on %s', (_label, kind) => {
  let hub: TestHub;
  let db: DataSource;
  const token: Record<string, string> = {};

  beforeAll(async () => {
    hub = await startTestHub(kind);
    db = hub.app.get(DataSource);
    for (const [name, group, mode, labels] of [
      ['a-prod', 'team-a', 'agent', { owner: 'a' }],
      ['a-lab', 'lab', 'agent', { owner: 'a' }],
      ['b-prod', 'team-b', 'agent', {}],
      ['shared', 'shared', 'push', { shared: 'yes' }],
    ] as const) {
      const body = mode === 'push' ? { name, group, labels, mode, endpoint: { server: 'https://127.0.0.1:1' }, credentials: { token: 'not-a-real-token' } } : { name, group, labels, mode };
      expect((await hub.call('POST', '/api/v1/clusters', { body })).status).toBe(201);
    }
    const tenants = [
      { name: 'team-a', destinations: { groups: ['team-a'], labelSelector: { matchLabels: { shared: 'yes' } } }, namespaces: ['team-a-*'], serviceAccounts: ['deployer'], repositories: [repoA], bootstrapRoles: ['admin'] },
      { name: 'team-b', destinations: { groups: ['team-b'] }, namespaces: ['team-b'], serviceAccounts: ['*'], repositories: [repoB] },
    ];
    for (const t of tenants) expect((await hub.call('POST', '/api/v1/tenants', { body: t })).status).toBe(201);
    for (const [name, tenant, role] of [
      ['a-op', 'team-a', 'operator'],
      ['a-view', 'team-a', 'viewer'],
      ['b-op', 'team-b', 'operator'],
    ] as const) {
      const res = await hub.call('POST', '/api/v1/tokens', { body: { name, role, tenant } });
      expect(res.status).toBe(201);
      expect(res.body.tenant).toBe(tenant);
      token[name] = res.body.token;
    }
    // one Project per tenant, each made by its own operator, targeting every cluster it can name
    const everything = { labelSelector: {} };
    const a = await hub.call('POST', '/api/v1/projects', { token: token['a-op'], body: { name: 'web', namespace: 'team-a-web', serviceAccountName: 'deployer', source: { repository: repoA }, targets: everything } });
    expect(a.status).toBe(201);
    expect(a.body.tenant).toBe('team-a');
    const b = await hub.call('POST', '/api/v1/projects', { token: token['b-op'], body: { name: 'db', namespace: 'team-b', source: { repository: repoB }, targets: everything } });
    expect(b.status).toBe(201);
    expect(b.body.tenant).toBe('team-b');
  });
  afterAll(() => hub?.close());

  it("creates Targets only on the tenant's destinations and says why the others got none", async () => {
    const targets = async (project: string) => ((await hub.call('GET', `/api/v1/projects/${project}/targets`)).body.items as Array<{ cluster: string }>).map((t) => t.cluster).sort();
    expect(await targets('web')).toEqual(['a-prod', 'shared']);
    expect(await targets('db')).toEqual(['b-prod']);
    const web = (await hub.call('GET', '/api/v1/projects/web', { token: token['a-view'] })).body;
    expect(web.status.conditions).toEqual([
      expect.objectContaining({ type: 'TargetsRestricted', status: 'True', reason: 'OutsideTenantDestinations', message: expect.stringContaining('2 cluster(s) match the targets but lie outside tenant "team-a"\'s destinations') }),
    ]);
    expect(web.status.conditions[0].message).toContain('a-lab, b-prod');
    const events = (await hub.call('GET', '/api/v1/projects/web/events')).body.items as Array<{ reason: string }>;
    expect(events.map((e) => e.reason)).toContain('OutsideTenantDestinations');
  });

  it("moves Targets when an admin changes the tenant's destinations", async () => {
    expect((await hub.call('PATCH', '/api/v1/tenants/team-a', { body: { destinations: { groups: ['team-a', 'lab'] } } })).status).toBe(200);
    const clusters = async () => ((await hub.call('GET', '/api/v1/projects/web/targets')).body.items as Array<{ cluster: string; phase: string }>).map((t) => t.cluster).sort();
    // `shared` never ran: its Target goes at once; `a-lab` joins
    expect(await clusters()).toEqual(['a-lab', 'a-prod']);
    expect((await hub.call('GET', '/api/v1/projects/web')).body.status.conditions[0].message).toContain('b-prod, shared');
    expect((await hub.call('PATCH', '/api/v1/tenants/team-a', { body: { destinations: { groups: ['team-a'], labelSelector: { matchLabels: { shared: 'yes' } } } } })).status).toBe(200);
    expect(await clusters()).toEqual(['a-prod', 'shared']);
  });

  it('shows a member only its own Projects, Targets and clusters, with totals to match', async () => {
    const list = (await hub.call('GET', '/api/v1/projects', { token: token['a-view'] })).body;
    expect(list.items.map((p: { name: string }) => p.name)).toEqual(['web']);
    expect(list.total).toBe(1);
    expect((await hub.call('GET', '/api/v1/projects?tenant=team-b', { token: token['a-view'] })).body).toMatchObject({ items: [], total: 0 });
    const clusters = (await hub.call('GET', '/api/v1/clusters', { token: token['a-view'] })).body;
    expect(clusters.items.map((c: { name: string }) => c.name)).toEqual(['a-prod', 'shared']);
    expect(clusters.total).toBe(2);
    const summary = (await hub.call('GET', '/api/v1/fleet/summary', { token: token['a-view'] })).body;
    expect(summary.projects).toBe(1);
    expect(summary.clusters).toBe(2);
    expect(summary.groups.map((g: { group: string }) => g.group)).toEqual(['shared', 'team-a']);
    const matrix = (await hub.call('GET', '/api/v1/fleet/matrix', { token: token['a-view'] })).body;
    expect(matrix.projects).toEqual(['web']);
    expect(matrix.items.map((r: { cluster: string }) => r.cluster)).toEqual(['shared', 'a-prod']);
    // a global viewer's view is the whole hub
    expect((await hub.call('GET', '/api/v1/fleet/summary')).body).toMatchObject({ projects: 2, clusters: 4 });
    expect((await hub.call('GET', '/api/v1/session', { token: token['a-view'] })).body).toEqual({ name: 'a-view', role: 'viewer', tenants: { 'team-a': 'viewer' } });
  });

  it("refuses every read of another tenant's Project and of clusters outside the destinations, naming the rule", async () => {
    for (const path of ['/api/v1/projects/db', '/api/v1/projects/db/targets', '/api/v1/projects/db/targets/b-prod', '/api/v1/projects/db/targets/b-prod/runs', '/api/v1/projects/db/events', '/api/v1/projects/db/deliveries']) {
      const res = await hub.call('GET', path, { token: token['a-view'] });
      expect({ path, status: res.status }).toEqual({ path, status: 403 });
      expect(res.body.message).toContain('project "db" belongs to tenant "team-b"; "a-view" is a member of "team-a" only (rule: tenant membership)');
    }
    const cluster = await hub.call('GET', '/api/v1/clusters/b-prod', { token: token['a-view'] });
    expect(cluster.status).toBe(403);
    expect(cluster.body.message).toContain('(rule: destinations)');
    expect((await hub.call('GET', '/api/v1/clusters/a-prod', { token: token['a-view'] })).status).toBe(200);
  });

  it("refuses every change beyond the tenant's rules and changes nothing", async () => {
    const create = (body: object, t = token['a-op']) => hub.call('POST', '/api/v1/projects', { token: t, body: { name: 'x', namespace: 'team-a-x', serviceAccountName: 'deployer', source: { repository: repoA }, ...body } });
    const refusals: Array<[object, string]> = [
      [{ namespace: 'kube-system' }, 'namespace "kube-system" is outside tenant "team-a"\'s namespaces [team-a-*] (rule: namespaces)'],
      [{ serviceAccountName: 'root' }, 'serviceAccountName "root" is outside tenant "team-a"\'s service accounts [deployer] (rule: serviceAccounts)'],
      [{ source: { repository: repoB } }, `source.repository "${repoB}" is outside tenant "team-a"'s repositories [${repoA}] (rule: repositories)`],
      [{ source: { repository: `${repoA}-evil` } }, '(rule: repositories)'],
      [{ bootstrap: { serviceAccountRole: 'cluster-admin' } }, 'bootstrap role "cluster-admin" is not one of tenant "team-a"\'s bootstrap roles [admin] (rule: bootstrapRoles)'],
      [{ tenant: 'team-b' }, 'tenant "team-b" belongs to tenant "team-b"; "a-op" is a member of "team-a" only (rule: tenant membership)'],
    ];
    for (const [body, message] of refusals) {
      const res = await create(body);
      expect({ body, status: res.status }).toEqual({ body, status: 403 });
      expect(res.body.message).toContain(message);
    }
    // team-b allows no bootstrap at all
    const noBootstrap = await hub.call('POST', '/api/v1/projects', { token: token['b-op'], body: { name: 'x', namespace: 'team-b', source: { repository: repoB }, bootstrap: { serviceAccountRole: 'admin' } } });
    expect(noBootstrap.body.message).toContain('bootstrap is not allowed in tenant "team-b" (rule: bootstrapRoles)');
    // a patch may not leave the rules either, nor move the Project to another tenant
    const patch = await hub.call('PATCH', '/api/v1/projects/web', { token: token['a-op'], body: { namespace: 'default' } });
    expect(patch.status).toBe(403);
    expect(patch.body.message).toContain('(rule: namespaces)');
    expect((await hub.call('PATCH', '/api/v1/projects/web', { token: token['a-op'], body: { tenant: 'team-b' } })).status).toBe(400);
    // nor may a member touch the other tenant's Project, whatever the verb
    for (const [method, path] of [
      ['PATCH', '/api/v1/projects/db'],
      ['DELETE', '/api/v1/projects/db'],
      ['POST', '/api/v1/projects/db/reconcile'],
      ['POST', '/api/v1/projects/db/suspend'],
      ['POST', '/api/v1/projects/db/diff'],
    ] as const) {
      const res = await hub.call(method, path, { token: token['a-op'], body: method === 'DELETE' ? undefined : {} });
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 403 });
      expect(res.body.message).toContain('(rule: tenant membership)');
    }
    // a viewer of the tenant may not change its own Project
    const viewerWrite = await hub.call('POST', '/api/v1/projects/web/suspend', { token: token['a-view'] });
    expect(viewerWrite.status).toBe(403);
    // nothing of the above left a trace
    expect((await db.query(`SELECT name, tenant, namespace, suspend FROM projects ORDER BY name`)).map((r: object) => r)).toEqual([
      { name: 'db', tenant: 'team-b', namespace: 'team-b', suspend: false },
      { name: 'web', tenant: 'team-a', namespace: 'team-a-web', suspend: false },
    ]);
  });

  it('closes every hub-wide route to tenant members', async () => {
    for (const [method, path] of [
      ['POST', '/api/v1/clusters'],
      ['PATCH', '/api/v1/clusters/a-prod'],
      ['DELETE', '/api/v1/clusters/a-prod'],
      ['POST', '/api/v1/clusters/a-prod/check'],
      ['GET', '/api/v1/clusters/a-prod/agent'],
      ['GET', '/api/v1/clusters/a-prod/agent/manifest'],
      ['POST', '/api/v1/clusters/a-prod/agent/upgrade'],
      ['GET', '/api/v1/tokens'],
      ['POST', '/api/v1/tenants'],
      ['PATCH', '/api/v1/tenants/team-a'],
      ['POST', '/api/v1/credentials/rotate'],
    ] as const) {
      const res = await hub.call(method, path, { token: token['a-op'], body: method === 'GET' || method === 'DELETE' ? undefined : {} });
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 403 });
    }
    const res = await hub.call('GET', '/api/v1/clusters/a-prod/agent/manifest', { token: token['a-op'] });
    expect(res.body.message).toContain('is hub-wide; "a-op" is a member of "team-a" only and may act only on its tenants\' Projects (rule: tenant scope)');
    expect((await hub.call('GET', '/api/v1/tenants', { token: token['a-op'] })).body.items.map((t: { name: string }) => t.name)).toEqual(['team-a']);
    expect((await hub.call('GET', '/api/v1/tenants/team-b', { token: token['a-op'] })).status).toBe(403);
    // and the same for a tenant that does not exist: a member cannot tell which do
    expect((await hub.call('GET', '/api/v1/tenants/no-such-team', { token: token['a-op'] })).status).toBe(403);
    expect((await hub.call('GET', '/api/v1/tenants/no-such-team')).status).toBe(404);
  });

  it("gives a member its tenant's audit entries only", async () => {
    const mine = await eventually('team-a entries', async () => {
      const items = (await hub.call('GET', '/api/v1/audit?limit=500', { token: token['a-view'] })).body.items as Array<{ tenant: string | null; action: string; outcome: number }>;
      return items.some((e) => e.action === 'POST /api/v1/projects/:name/suspend' && e.outcome === 403) ? items : undefined;
    });
    expect(new Set(mine.map((e) => e.tenant))).toEqual(new Set(['team-a']));
    // a member of team-b probing team-a's Project: admins and team-b see who, team-a's members do not
    expect((await hub.call('POST', '/api/v1/projects/web/suspend', { token: token['b-op'] })).status).toBe(403);
    const probe = await eventually('the probe audited', async () => {
      const items = (await hub.call('GET', '/api/v1/audit?limit=500&actor=b-op')).body.items as Array<{ tenant: string | null; action: string; outcome: number }>;
      return items.find((e) => e.action === 'POST /api/v1/projects/:name/suspend' && e.outcome === 403);
    });
    expect(probe.tenant).toBe('team-b');
    const seenByA = (await hub.call('GET', '/api/v1/audit?limit=500', { token: token['a-view'] })).body.items as Array<{ actor: { name: string } }>;
    expect(seenByA.map((e) => e.actor.name)).not.toContain('b-op');
    const all = (await hub.call('GET', '/api/v1/audit?limit=500')).body.items as Array<{ tenant: string | null }>;
    expect(new Set(all.map((e) => e.tenant))).toEqual(new Set([null, 'team-a', 'team-b']));
    // a global operator is neither admin nor member
    const op = (await hub.call('POST', '/api/v1/tokens', { body: { name: 'global-op', role: 'operator' } })).body.token;
    const refused = await hub.call('GET', '/api/v1/audit', { token: op });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('(rule: audit readers)');
  });

  it('keeps a tenant with Projects, and ends its tokens when it goes', async () => {
    expect((await hub.call('DELETE', '/api/v1/tenants/team-b')).status).toBe(409);
    expect((await hub.call('DELETE', '/api/v1/projects/db?instances=orphan')).status).toBe(200);
    expect((await hub.call('DELETE', '/api/v1/tenants/team-b')).status).toBe(204);
    expect((await hub.call('GET', '/api/v1/projects', { token: token['b-op'] })).status).toBe(401);
    const admin = await hub.call('POST', '/api/v1/tokens', { body: { name: 'tenant-admin', role: 'admin', tenant: 'team-a' } });
    expect(admin.status).toBe(400);
    expect(admin.body.message ?? JSON.stringify(admin.body)).toContain('admin is global only');
  });

  it("counts only a member's own Targets on a cluster and names only twins within its destinations", async () => {
    // another tenant's Project (the default tenant's) on every cluster, a-prod and shared included
    const ops = await hub.call('POST', '/api/v1/projects', { body: { name: 'ops', namespace: 'ops', source: { repository: 'oci://127.0.0.1:5000/acme/ops' }, targets: { labelSelector: {} } } });
    expect(ops.status).toBe(201);
    // one API server registered three times, once outside team-a's destinations (b-prod)
    await db.query(`UPDATE clusters SET api_server_identity = 'uid-of-one-server' WHERE name IN ('a-prod', 'b-prod', 'shared')`);
    const view = async (token?: string) => {
      const page = (await hub.call('GET', '/api/v1/clusters', { token })).body.items as Array<{ name: string; targets: number; status: { warnings: string[] } }>;
      const one = (await hub.call('GET', '/api/v1/clusters/shared', { token })).body as { targets: number; status: { warnings: string[] } };
      return { targets: Object.fromEntries(page.map((c) => [c.name, c.targets])), shared: one, listed: page.find((c) => c.name === 'shared')?.status.warnings };
    };
    const admin = await view();
    expect(admin.targets).toEqual({ 'a-lab': 1, 'a-prod': 2, 'b-prod': 1, shared: 2 });
    expect(admin.shared.targets).toBe(2);
    expect(admin.shared.status.warnings).toEqual([expect.stringContaining('is also registered as "a-prod", "b-prod"')]);
    const member = await view(token['a-view']);
    expect(member.targets).toEqual({ 'a-prod': 1, shared: 1 });
    expect(member.shared.targets).toBe(1);
    expect(member.shared.status.warnings).toEqual([expect.stringContaining('is also registered as "a-prod": ')]);
    expect(member.listed).toEqual(member.shared.status.warnings);
    expect(admin.listed).toEqual(admin.shared.status.warnings);
  });
});
