import { shopProjectFiles, type ShopRevision } from './fixtures/projects';
import { eventually } from './support/eventually';
import type { HubFleet } from './support/hub-fleet';
import { projectRepository, publishProject, publishWebapp } from './support/publish';
import { configMapData, createProject, deploymentNames, instanceInfo, readyOn, runs } from './support/shop';
import { spokeSuite } from './support/suite';

// Issue 8, first end-to-end suite: a compiled hub on the harness PostgreSQL
// applies a two-component Project from the harness registry to the harness
// API server, registered through the REST API as a push cluster.

jest.setTimeout(90_000);

describe('push mode: a Project registered through the API converges on a push cluster', () => {
  let fleet: HubFleet;
  const { registry, kube, ns } = spokeSuite('e2e-shop', { started: (f) => (fleet = f) });
  let repo: string;
  let rev: ShopRevision;

  beforeAll(async () => {
    const moduleUrl = await publishWebapp(registry);
    repo = projectRepository();
    rev = { moduleUrl, moduleVersion: '1.0.0', namespace: ns, infra: ['db', 'cache'], message: 'welcome' };
  });

  it('applies both components with Timoni labels and inventories, and reports status, a Run and metrics', () =>
    fleet.guard(async () => {
      const digest = await publishProject(registry, repo, shopProjectFiles(rev));
      const revision = `latest@${digest}`;
      expect(revision).toMatch(/^latest@sha256:[0-9a-f]{64}$/);
      await createProject(fleet, { name: 'shop', namespace: ns, repository: repo }, {
        interval: '10m',
      });

      const t = await readyOn(fleet, 'shop', 'spoke-1', revision);
      expect(t).toMatchObject({ phase: 'Ready', observedGeneration: 1, attempt: 0 });
      expect(t.conditions.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True' });
      expect(t.components.map((c) => `${c.name}:${c.status}`).sort()).toEqual(['app:Succeeded', 'infra:Succeeded']);

      // The objects, with the labels Timoni stamps on every object.
      const cms = await configMapData(kube, ns);
      expect(Object.keys(cms).sort()).toEqual(['cache-config', 'db-config', 'web-config']);
      expect(cms['web-config']).toEqual({ message: 'welcome', cluster: 'spoke-1' });
      expect(await deploymentNames(kube, ns)).toEqual(['cache', 'db', 'web']);
      for (const name of ['db', 'cache', 'web']) {
        const d = await kube.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name });
        expect(d.metadata.labels).toMatchObject({
          'instance.timoni.sh/name': name,
          'instance.timoni.sh/namespace': ns,
          'app.kubernetes.io/version': '1.0.0',
          'app.kubernetes.io/managed-by': 'timoni',
        });
        expect(d.metadata.managedFields?.some((f) => f.manager === 'timoni' && f.operation === 'Apply')).toBe(true);
      }

      // One inventory Secret per instance, as Timoni writes it, plus Flotilla's Project labels.
      for (const [name, component] of [['db', 'infra'], ['cache', 'infra'], ['web', 'app']]) {
        const secret = await kube.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: `timoni.${name}` });
        expect(secret.type).toBe('timoni.sh/instance');
        expect(secret.metadata.labels).toMatchObject({
          'app.kubernetes.io/name': name,
          'app.kubernetes.io/component': 'instance',
          'app.kubernetes.io/created-by': 'timoni',
          'bundle.timoni.sh/name': component,
          'project.flotilla.dev/name': 'shop',
          'project.flotilla.dev/namespace': ns,
          'project.flotilla.dev/component': component,
        });
        const state = JSON.parse(Buffer.from((secret.data as Record<string, string>).instance, 'base64').toString()) as {
          module: { repository: string; version: string; digest: string };
          inventory: { entries: Array<{ id: string; v: string }> };
        };
        expect(state.module).toMatchObject({ repository: rev.moduleUrl, version: '1.0.0' });
        expect(state.module.digest).toMatch(/^sha256:/);
        expect(state.inventory.entries).toEqual([
          { id: `${ns}_${name}-config__ConfigMap`, v: 'v1' },
          { id: `${ns}_${name}_apps_Deployment`, v: 'v1' },
        ]);
      }

      // The Run row: why, what and how it went.
      const [run, ...older] = await runs(fleet, 'shop', 'spoke-1');
      expect(older).toEqual([]);
      expect(run).toMatchObject({ trigger: 'Created', result: 'Succeeded', revision, leaseOwner: 'hub-1', error: null });
      expect(run.durationMs).toBeGreaterThan(0);
      expect(run.instances.map((i) => `${i.component}/${i.name}:${i.action}:${i.counts.created}`).sort()).toEqual(['app/web:applied:2', 'infra/cache:applied:2', 'infra/db:applied:2']);

      // app needs infra: web was applied only after both infra instances.
      const events = ((await fleet.expectCall(200, 'GET', '/api/v1/projects/shop/events?limit=100')).body as { items: Array<{ reason: string; message: string; time: string }> }).items;
      const applied = (name: string) => events.find((e) => e.reason === 'InstanceApplied' && e.message.includes(`instance ${ns}/${name} `));
      for (const name of ['db', 'cache', 'web']) expect(applied(name)).toBeDefined();
      expect(Date.parse(applied('web')!.time)).toBeGreaterThanOrEqual(Math.max(Date.parse(applied('db')!.time), Date.parse(applied('cache')!.time)));
      // ... and as core/v1 Events on each inventory Secret in the cluster (posted in the background).
      await eventually('core/v1 Events on every inventory Secret', async () => {
        const kubeEvents = await kube.list('v1', 'Event', { namespace: ns });
        const about = (name: string) => kubeEvents.some((e) => e.reason === 'InstanceApplied' && (e.involvedObject as { kind: string; name: string }).name === `timoni.${name}`);
        return ['db', 'cache', 'web'].every(about) ? true : undefined;
      }, { timeoutMs: 15_000 });

      // Metrics with the RFC's labels.
      const metrics = (await fleet.expectCall(200, 'GET', '/metrics')).text;
      const info = instanceInfo(metrics);
      expect(info.map((i) => i.labels.instance_name).sort()).toEqual(['cache', 'db', 'web']);
      for (const { labels, value } of info) {
        expect(value).toBe(1);
        expect(labels).toMatchObject({
          instance_namespace: ns,
          // no controller runs these Deployments here, and no component waits: applied, but not ready
          ready: 'false',
          module_version: '1.0.0',
          project_name: 'shop',
          project_namespace: ns,
          project_component: labels.instance_name === 'web' ? 'app' : 'infra',
          project_source: repo,
          project_revison: revision,
        });
        expect(labels.module_name).toBeTruthy();
      }
      expect(metrics).toMatch(/^timoni_instance_reconcile_duration_seconds_count\{[^}]*instance_name="web"[^}]*\} 1$/m);
      expect(metrics).toMatch(/^flotilla_kube_api_requests_total\{[^}]*code="200"[^}]*\} \d+$/m);
    })());

  it('removes the instances from the cluster when the Project is deleted with its instances', () =>
    fleet.guard(async () => {
      await fleet.expectCall(202, 'DELETE', '/api/v1/projects/shop?instances=delete');
      await eventually('the Project to be gone', async () => ((await fleet.call('GET', '/api/v1/projects/shop')).status === 404 ? true : undefined), {
        timeoutMs: 30_000,
        observe: async () => (await fleet.call('GET', '/api/v1/projects/shop/targets')).body,
      });
      expect(await configMapData(kube, ns)).toEqual({});
      expect(await deploymentNames(kube, ns)).toEqual([]);
      expect(await kube.list('v1', 'Secret', { namespace: ns, labelSelector: 'project.flotilla.dev/name=shop' })).toEqual([]);
    })());
});
