// Reconciles against the harness: projects pushed to the real registry,
// applied to the real API server as a namespace-scoped service account.
import { CueEngine } from '@flotilla/cue';
import { recordObjects, type KubeObject } from '@flotilla/kube';
import { runStatus } from './conditions';
import { ComponentTimeoutError, ProjectLoadError, BundleError, DependencyNotReadyError, ResolveError, ServiceAccountNotFoundError, TenantPolicyError } from './errors';
import { instanceEventText, instanceKubeEvent } from './instance-event';
import { appliedInstance } from './run-report';
import { formatRevision, reconcileProject, type ReconcileDeps } from './project-reconcile';
import { RegistryClients } from './registry-clients';
import { SourceCache } from './source-fetch';
import { MemoryGenerator } from './test-support';
import { TimoniManifestGenerator } from './timoni-generator';
import type { ComponentFinishedEvent, InstanceAppliedEvent, InstancePrunedEvent, ProjectSpec, ReconcileInput } from './types';
import { UNPULLABLE_IMAGE } from '../../../test/harness/kube-nodes';
import { adminManager, createTenant, pushProject, pushTestModule, registryClient, registryHost, unique } from '../testdata/harness';

jest.setTimeout(180_000);

let cue: CueEngine;
const { connection, manager } = adminManager();
const client = manager.client;
const sources = new SourceCache();

beforeAll(async () => {
  cue = await CueEngine.start({ poolSize: 1 });
});
afterAll(async () => {
  await cue?.close();
  await connection.close();
});

function projectFiles(moduleUrl: string, ns: string, rev: { cache: boolean; web: string }): Record<string, string> {
  return {
    'project.cue': `project: {
	apiVersion: "v1alpha1"
	name:       "shop"
	components: {
		app: {
			bundle: ["./app/bundle.cue"]
			runtime: ["./app/runtime.cue"]
			needs: ["infra"]
		}
		infra: {
			bundle: ["./infra/bundle.cue"]
			wait:    true
			timeout: "2m"
		}
	}
}
`,
    'infra/bundle.cue': `bundle: {
	_cluster: {
		name:  string @timoni(runtime:string:TIMONI_CLUSTER_NAME)
		group: string @timoni(runtime:string:TIMONI_CLUSTER_GROUP)
	}
	apiVersion: "v1alpha1"
	name:       "infra"
	instances: {
		db: {
			module: {url: "${moduleUrl}", version: "1.0.0"}
			namespace: "${ns}"
			values: message: "db on \\(_cluster.name) in \\(_cluster.group)"
		}
${rev.cache ? `		cache: {
			module: url: "${moduleUrl}"
			namespace: "${ns}"
			values: message: "cache"
		}
` : ''}	}
}
`,
    'app/bundle.cue': `bundle: {
	_env:   string @timoni(runtime:string:ENV)
	_color: string @timoni(runtime:string:COLOR)
	apiVersion: "v1alpha1"
	name:       "app"
	instances: web: {
		module: url: "${moduleUrl}"
		namespace: "${ns}"
		values: {message: "${rev.web} (\\(_env))", color: _color, extra: true}
	}
}
`,
    'app/runtime.cue': `runtime: {
	apiVersion: "v1alpha1"
	name:       "app"
	values: [{query: "k8s:v1:ConfigMap:${ns}:settings", for: {COLOR: "obj.data.color"}}]
}
`,
  };
}

function project(ns: string, repository: string, extra: Partial<ProjectSpec> = {}): ProjectSpec {
  return {
    name: 'shop',
    namespace: ns,
    source: { repository, tag: 'latest', path: 'project.cue' },
    serviceAccountName: 'deployer',
    annotations: { 'runtime.timoni.sh/ENV': 'prod' },
    ...extra,
  };
}

function recorder() {
  const events = { applied: [] as InstanceAppliedEvent[], pruned: [] as InstancePrunedEvent[], components: [] as ComponentFinishedEvent[], runs: 0 };
  return {
    events,
    hooks: {
      instanceApplied: (e: InstanceAppliedEvent) => void events.applied.push(e),
      instancePruned: (e: InstancePrunedEvent) => void events.pruned.push(e),
      componentFinished: (e: ComponentFinishedEvent) => void events.components.push(e),
      runFinished: () => void events.runs++,
    },
  };
}

const configMaps = async (ns: string) =>
  Object.fromEntries((await client.list('v1', 'ConfigMap', { namespace: ns })).filter((o) => o.metadata.name !== 'kube-root-ca.crt' && o.metadata.name !== 'settings').map((o) => [o.metadata.name, o]));
const secretNames = async (ns: string) => (await client.list('v1', 'Secret', { namespace: ns })).map((s) => s.metadata.name).sort();

describe('reconcileProject with the Timoni generator (real registry and API server)', () => {
  let ns: string;
  let repo: string;
  let moduleUrl: string;
  let generator: TimoniManifestGenerator;
  const registries = new RegistryClients();
  const deps = (hooks?: ReconcileDeps['hooks']): ReconcileDeps => ({ generator, manager, sources, registries, hooks, options: { wait: { intervalMs: 200, initialIntervalMs: 50, failFast: true } } });

  beforeAll(async () => {
    generator = new TimoniManifestGenerator(cue);
    ns = await createTenant(client, 'engine');
    await client.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: ns }, data: { color: 'blue' } }, { dryRun: false, force: true, fieldManager: 'flotilla-test' });
    const reg = registryClient();
    moduleUrl = await pushTestModule(reg, registryHost());
    repo = `oci://${registryHost()}/projects/${unique('shop')}`;
  });

  it('applies both components, dependencies first, as the service account, with Timoni labels and inventory', async () => {
    const digest = await pushProject(registryClient(), repo, projectFiles(moduleUrl, ns, { cache: true, web: 'hello' }));
    const { events, hooks } = recorder();
    const result = await reconcileProject({ project: project(ns, repo), cluster: { name: 'c1', group: 'staging' } }, deps(hooks));

    expect(result.error).toBeUndefined();
    expect(result.ok).toBe(true);
    expect(result.revision).toBe(formatRevision('latest', digest));
    expect(result.components.map((c) => [c.name, c.status])).toEqual([['app', 'Succeeded'], ['infra', 'Succeeded']]);
    expect(events.components.map((e) => e.component.name)).toEqual(['infra', 'app']);
    expect(events.runs).toBe(1);
    expect(result.namespaces).toEqual([ns]);
    expect(runStatus(result, new Date()).decision).toBe('done');

    const cms = await configMaps(ns);
    expect(Object.keys(cms).sort()).toEqual(['cache-config', 'db-config', 'web-config', 'web-extra']);
    const kubeVersion = (await client.connection.request<{ gitVersion: string }>({ method: 'GET', path: '/version' })).gitVersion.replace(/^v/, '');
    expect(cms['db-config'].data).toEqual({ message: 'db on c1 in staging', color: 'none', module: '1.0.0', kube: kubeVersion });
    // Annotation (ENV) and a `k8s:` runtime query read as the service account (COLOR).
    expect(cms['web-config'].data).toMatchObject({ message: 'hello (prod)', color: 'blue' });
    expect(cms['web-config'].metadata.labels).toMatchObject({ 'instance.timoni.sh/name': 'web', 'instance.timoni.sh/namespace': ns });
    expect(cms['web-config'].metadata.managedFields?.map((m) => m.manager)).toContain('timoni');

    const stored = await manager.storage.read(ns, 'web');
    expect(stored?.secret.type).toBe('timoni.sh/instance');
    expect(stored?.secret.metadata.labels).toMatchObject({
      'app.kubernetes.io/name': 'web',
      'app.kubernetes.io/component': 'instance',
      'app.kubernetes.io/created-by': 'timoni',
      'bundle.timoni.sh/name': 'app',
      'project.flotilla.dev/name': 'shop',
      'project.flotilla.dev/namespace': ns,
      'project.flotilla.dev/component': 'app',
    });
    expect(recordObjects(stored?.record).map((r) => r.name).sort()).toEqual(['web-config', 'web-extra']);
    expect(stored?.record.module).toMatchObject({ name: 'flotilla.test/configs', version: '1.0.0', repository: `oci://${registryHost()}/modules/configs` });

    const web = events.applied.find((e) => e.instance.name === 'web')!;
    expect(web.context.revision).toBe(result.revision);
    expect(web.instance.counts).toMatchObject({ created: 2, configured: 0, deleted: 0 });
    expect(web.instance.module?.version).toBe('1.0.0');
    expect(events.applied.map((e) => e.instance.name).sort()).toEqual(['cache', 'db', 'web']);

    // The hub records the instance event in the cluster: the API server accepts it.
    const ev = instanceKubeEvent({ instance: web.instance, project: web.context.project, cluster: web.context.cluster.name, revision: web.context.revision }, instanceEventText(appliedInstance(web.instance)), new Date());
    await client.apply(ev, { dryRun: false, force: true, fieldManager: 'flotilla' });
    const recorded = await client.get({ apiVersion: 'v1', kind: 'Event', namespace: ns, name: ev.metadata.name });
    expect(recorded).toMatchObject({ reason: 'InstanceApplied', involvedObject: { name: 'timoni.web' } });
    expect(String(recorded.message)).toContain(`objects: ConfigMap/${ns}/web-config`);
  });

  it('a new revision under the same tag (pre-resolved digest) prunes the instance that left its component', async () => {
    const digest = await pushProject(registryClient(), repo, projectFiles(moduleUrl, ns, { cache: false, web: 'changed' }));
    const { events, hooks } = recorder();
    const input: ReconcileInput = { project: project(ns, repo), cluster: { name: 'c1', group: 'staging' }, digest };
    const result = await reconcileProject(input, deps(hooks));

    expect(result.error).toBeUndefined();
    expect(result.timings.resolveMs).toBe(0);
    expect(result.revision).toBe(`latest@${digest}`);
    expect(result.pruned.map((p) => [p.name, p.component, p.error])).toEqual([['cache', 'infra', undefined]]);
    expect(result.pruned[0].counts.deleted).toBe(1);
    expect(events.pruned.map((e) => e.instance.name)).toEqual(['cache']);
    const web = result.components.find((c) => c.name === 'app')!.instances[0];
    expect(web.counts).toMatchObject({ configured: 1, unchanged: 1, created: 0 });

    const cms = await configMaps(ns);
    expect(Object.keys(cms).sort()).toEqual(['db-config', 'web-config', 'web-extra']);
    expect((cms['web-config'].data as Record<string, string>).message).toBe('changed (prod)');
    expect(await secretNames(ns)).toEqual(['timoni.db', 'timoni.web']);
    // Both runs were anonymous: one shared registry client.
    expect(registries.size).toBe(1);

    // Drift correction on the same revision: nothing changes, the plan comes from the cache.
    const again = await reconcileProject(input, deps());
    expect(again.ok).toBe(true);
    expect(again.components.flatMap((c) => c.instances.map((i) => [i.name, i.counts.unchanged, i.counts.created + i.counts.configured]))).toEqual([['web', 2, 0], ['db', 1, 0]]);
    expect(again.pruned).toEqual([]);
    expect(generator.stats().projectLoads).toBe(2);
  });

  it('names a missing service account or namespace instead of the 403 a request as it would get', async () => {
    await pushProject(registryClient(), repo, projectFiles(moduleUrl, ns, { cache: false, web: 'hello' }));
    const noAccount = await reconcileProject({ project: project(ns, repo, { serviceAccountName: 'nobody' }), cluster: { name: 'c1', group: 'staging' } }, deps());
    expect(noAccount.ok).toBe(false);
    expect(noAccount.error).toBeInstanceOf(ServiceAccountNotFoundError);
    expect(noAccount.error?.message).toBe(`ServiceAccount ${ns}/nobody does not exist in cluster c1: the Project applies as it; create it and bind it a role`);
    const missing = unique('missing');
    const noNamespace = await reconcileProject({ project: project(missing, repo), cluster: { name: 'c1', group: 'staging' } }, deps());
    expect(noNamespace.error?.message).toMatch(new RegExp(`^namespace ${missing} does not exist in cluster c1: the Project applies as ServiceAccount ${missing}/deployer`));
    const status = runStatus(noNamespace, new Date());
    expect([status.decision, status.reason]).toEqual(['retry', 'ServiceAccountNotFound']);
    expect(status.message).not.toContain('403');
  });

  it("refuses, before applying anything, a Project or an instance outside its tenant's policy", async () => {
    await pushProject(registryClient(), repo, projectFiles(moduleUrl, ns, { cache: false, web: 'tenant' }));
    const before = await configMaps(ns);
    const cluster = { name: 'c1', group: 'staging' };
    // the Project's own namespace is outside: refused before the registry is asked
    const outside = await reconcileProject({ project: project(ns, repo, { policy: { tenant: 'team-a', namespaces: ['team-a-*'], serviceAccounts: ['*'] } }), cluster }, deps());
    expect(outside.error).toBeInstanceOf(TenantPolicyError);
    expect(outside.error?.message).toBe(`namespace "${ns}" is outside tenant "team-a"'s namespaces [team-a-*] (rule: namespaces)`);
    expect(outside.digest).toBeUndefined();
    const account = await reconcileProject({ project: project(ns, repo, { policy: { tenant: 'team-a', namespaces: [ns], serviceAccounts: ['ci-*'] } }), cluster }, deps());
    expect(account.error?.message).toBe(`service account "deployer" is outside tenant "team-a"'s service accounts [ci-*] (rule: serviceAccounts)`);
    // the Project is inside, but its bundles put instances elsewhere: the policy names only its namespace, not theirs
    const elsewhere = unique('elsewhere');
    await pushProject(registryClient(), repo, projectFiles(moduleUrl, elsewhere, { cache: false, web: 'tenant' }));
    const instances = await reconcileProject({ project: project(ns, repo, { policy: { tenant: 'team-a', namespaces: [ns], serviceAccounts: ['deployer'] } }), cluster }, deps());
    expect(instances.ok).toBe(false);
    expect(instances.error).toBeInstanceOf(TenantPolicyError);
    expect(instances.error?.message).toBe(`component infra: instance db would go to namespace "${elsewhere}", outside tenant "team-a"'s namespaces [${ns}] (rule: namespaces); nothing of the component was applied`);
    const status = runStatus(instances, new Date());
    expect(status.reason).toBe('TenantPolicyRefused');
    expect(await configMaps(ns)).toEqual(before);
  });

  it('a broken revision is a clear error, stalls, and keeps the last good objects', async () => {
    const files = projectFiles(moduleUrl, ns, { cache: false, web: 'broken' });
    files['project.cue'] = files['project.cue'].replace('needs: ["infra"]', 'needs: ["infra", "database"]');
    await pushProject(registryClient(), repo, files);
    const result = await reconcileProject({ project: project(ns, repo), cluster: { name: 'c1', group: 'staging' } }, deps());

    expect(result.ok).toBe(false);
    expect(result.error).toBeInstanceOf(ProjectLoadError);
    expect(result.error?.message).toContain('needs unknown component "database"');
    expect(result.error?.message).toContain('project.cue');
    expect(result.error?.message.match(/\bproject /g)).toHaveLength(1);
    const status = runStatus(result, new Date());
    expect(status.decision).toBe('stall');
    expect(status.conditions.map((c) => [c.type, c.status, c.reason])).toEqual([['Ready', 'False', 'InvalidProject'], ['Stalled', 'True', 'InvalidProject']]);
    expect(result.pruned).toEqual([]);
    expect(((await configMaps(ns))['web-config'].data as Record<string, string>).message).toBe('changed (prod)');
  });

  it('a broken bundle fails its component, skips its dependents and prunes nothing', async () => {
    const files = projectFiles(moduleUrl, ns, { cache: false, web: 'broken' });
    files['infra/bundle.cue'] = files['infra/bundle.cue'].replace('namespace: "', 'namespace: 42\n\t\t\tnamespace: "');
    await pushProject(registryClient(), repo, files);
    const result = await reconcileProject({ project: project(ns, repo), cluster: { name: 'c1', group: 'staging' } }, deps());

    expect(result.components.map((c) => [c.name, c.status, c.error?.constructor.name])).toEqual([
      ['app', 'Skipped', DependencyNotReadyError.name],
      ['infra', 'Failed', BundleError.name],
    ]);
    expect(result.error).toBeInstanceOf(BundleError);
    expect(result.error?.message).toMatch(/^component infra: bundle: /);
    expect(runStatus(result, new Date()).decision).toBe('stall');
    expect(result.pruned).toEqual([]);
    expect(Object.keys(await configMaps(ns)).sort()).toEqual(['db-config', 'web-config', 'web-extra']);
  });
});

describe('reconcileProject scheduling on the real API server (in-memory generator)', () => {
  let ns: string;
  let repo: string;
  beforeAll(async () => {
    ns = await createTenant(client, 'engine-dag');
    repo = `oci://${registryHost()}/projects/${unique('dag')}`;
    await pushProject(registryClient(), repo, { 'project.cue': '// read by the in-memory generator only\n' });
  });

  const cm = (name: string) => ({ namespace: ns, configMaps: { [name]: { v: '1' } } });

  it('a failure stops only its dependents; independent components run in parallel up to the bound', async () => {
    const generator = new MemoryGenerator([
      { name: 'a', needs: [], wait: false, instances: { ia: cm('a') }, fail: { step: 'runtime', error: new Error('query failed') } },
      { name: 'b', needs: ['a'], wait: false, instances: { ib: cm('b') } },
      { name: 'c', needs: [], wait: false, instances: { ic: cm('c') }, delayMs: 100 },
      { name: 'd', needs: [], wait: true, instances: { id: cm('d') }, delayMs: 100 },
      { name: 'e', needs: ['c', 'd'], wait: false, instances: { ie: cm('e') } },
    ]);
    const result = await reconcileProject(
      { project: project(ns, repo, { name: 'dag' }), cluster: { name: 'c1', group: 'g' } },
      { generator, manager, sources, options: { concurrency: 2 } },
    );
    expect(result.components.map((c) => [c.name, c.status])).toEqual([['a', 'Failed'], ['b', 'Skipped'], ['c', 'Succeeded'], ['d', 'Succeeded'], ['e', 'Succeeded']]);
    expect(generator.peak).toBe(2);
    expect(generator.started.indexOf('e')).toBeGreaterThan(generator.started.indexOf('d'));
    expect(Object.keys(await configMaps(ns)).sort()).toEqual(['c', 'd', 'e']);
    const status = runStatus(result, new Date());
    expect(status.decision).toBe('retry');
    expect(status.reason).toBe('RuntimeValuesFailed');
  });

  it('prunes the instances of a component removed from the project', async () => {
    const generator = new MemoryGenerator([
      { name: 'a', needs: [], wait: false, instances: { ia: cm('a') } },
      { name: 'c', needs: [], wait: false, instances: { ic: cm('c') } },
      { name: 'e', needs: ['c'], wait: false, instances: { ie: cm('e') } },
    ]);
    const result = await reconcileProject({ project: project(ns, repo, { name: 'dag' }), cluster: { name: 'c1', group: 'g' } }, { generator, manager, sources });
    expect(result.ok).toBe(true);
    expect(result.pruned.map((p) => [p.name, p.component])).toEqual([['id', 'd']]);
    expect(Object.keys(await configMaps(ns)).sort()).toEqual(['a', 'c', 'e']);
  });
});

describe('reconcileProject limits and ownership (real API server, in-memory generator)', () => {
  let ns: string;
  let repo: string;
  beforeAll(async () => {
    ns = await createTenant(client, 'engine-limits');
    repo = `oci://${registryHost()}/projects/${unique('limits')}`;
    await pushProject(registryClient(), repo, { 'project.cue': '// in-memory\n' });
  });

  // The harness's kwok nodes never pull this image: the Deployment never becomes ready.
  const deployment = (name: string): KubeObject => ({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: ns },
    spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: UNPULLABLE_IMAGE }] } } },
  });

  it('waits within the component timeout: a Deployment that never rolls out fails its component, the others finish', async () => {
    const generator = new MemoryGenerator([
      { name: 'slow', needs: [], wait: true, timeoutMs: 1500, instances: { web: { namespace: ns, configMaps: {}, objects: [deployment('web')] } } },
      { name: 'after', needs: ['slow'], wait: false, instances: { x: { namespace: ns, configMaps: { x: { v: '1' } } } } },
      { name: 'fast', needs: [], wait: true, instances: { f: { namespace: ns, configMaps: { f: { v: '1' } } } } },
    ]);
    const result = await reconcileProject({ project: project(ns, repo, { name: 'limits' }), cluster: { name: 'c1', group: 'g' } }, { generator, manager, sources, options: { wait: { intervalMs: 200, initialIntervalMs: 50, failFast: true } } });
    const slow = result.components[0];
    expect(slow.status).toBe('Failed');
    expect(['HealthCheckFailed', 'ComponentTimeout']).toContain(slow.error?.reason);
    expect(result.components.map((c) => [c.name, c.status])).toEqual([['slow', 'Failed'], ['after', 'Skipped'], ['fast', 'Succeeded']]);
    expect(runStatus(result, new Date()).decision).toBe('retry');
  });

  it('a wait cut off by the component timeout names the object not ready and keeps the apply counts', async () => {
    const generator = new MemoryGenerator([
      { name: 'infra', needs: [], wait: true, timeoutMs: 1500, instances: { db: { namespace: ns, configMaps: { 'db-config': { v: '1' } }, objects: [deployment('db')] } } },
    ]);
    const t0 = Date.now();
    const result = await reconcileProject({ project: project(ns, repo, { name: 'cutoff' }), cluster: { name: 'c1', group: 'g' } }, { generator, manager, sources, options: { wait: { intervalMs: 200, initialIntervalMs: 50, failFast: true } } });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1500 - 50);
    const [infra] = result.components;
    expect(infra.error).toBeInstanceOf(ComponentTimeoutError);
    expect(infra.error?.message).toMatch(new RegExp(`^component infra: did not finish within its timeout of 1500ms: .*Deployment/${ns}/db status: 'InProgress'`));
    const [db] = infra.instances;
    expect(db.error?.message).toContain(`Deployment/${ns}/db`);
    expect(db.error?.message).not.toContain('ConfigMap');
    expect(db.counts.created).toBe(2);
    expect(db.changes.map((c) => `${c.ref.kind}/${c.ref.name}:${c.action}`).sort()).toEqual(['ConfigMap/db-config:created', 'Deployment/db:created']);
  });

  it('refuses an instance that another Project owns', async () => {
    const one = new MemoryGenerator([{ name: 'c', needs: [], wait: false, instances: { shared: { namespace: ns, configMaps: { s1: { v: '1' } } } } }]);
    expect((await reconcileProject({ project: project(ns, repo, { name: 'first' }), cluster: { name: 'c1', group: 'g' } }, { generator: one, manager, sources })).ok).toBe(true);
    const two = new MemoryGenerator([{ name: 'c', needs: [], wait: false, instances: { shared: { namespace: ns, configMaps: { s2: { v: '1' } } } } }]);
    const result = await reconcileProject({ project: project(ns, repo, { name: 'second' }), cluster: { name: 'c1', group: 'g' } }, { generator: two, manager, sources });
    expect(result.ok).toBe(false);
    expect(result.error?.reason).toBe('OwnershipConflict');
    expect(result.error?.message).toContain(`instance ${ns}/shared belongs to Project ${ns}/first`);
    expect(Object.keys(await configMaps(ns))).not.toContain('s2');
  });

  it('an aborted run stops, reports RunAborted and prunes nothing', async () => {
    const generator = new MemoryGenerator([{ name: 'c', needs: [], wait: false, delayMs: 2000, instances: { late: { namespace: ns, configMaps: { late: { v: '1' } } } } }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('lease lost')), 100);
    const result = await reconcileProject({ project: project(ns, repo, { name: 'first' }), cluster: { name: 'c1', group: 'g' }, signal: controller.signal }, { generator, manager, sources });
    expect(result.error?.reason).toBe('ReconciliationAborted');
    expect(result.error?.message).toContain('lease lost');
    expect(result.pruned).toEqual([]);
    expect(Object.keys(await configMaps(ns))).toContain('s1');
  });
});

describe('registry credentials from the service account (authenticating registry)', () => {
  it('fails to resolve without credentials, then reads the image pull secrets of the service account', async () => {
    const env = (await import('../../../test/harness/env')).harnessEnv();
    const creds = { kind: 'basic' as const, username: env.registryAuth.username, password: env.registryAuth.password };
    const host = registryHost(true);
    const repo = `oci://${host}/projects/${unique('private')}`;
    await pushProject(registryClient(creds), repo, { 'project.cue': '// in-memory\n' });
    const ns = await createTenant(client, 'engine-creds');
    const generator = new MemoryGenerator([{ name: 'only', needs: [], wait: false, instances: { one: { namespace: ns, configMaps: { one: { v: '1' } } } } }]);
    const input = { project: project(ns, repo, { name: 'private' }), cluster: { name: 'c1', group: 'g' } };

    const denied = await reconcileProject(input, { generator, manager, sources });
    expect(denied.error).toBeInstanceOf(ResolveError);
    expect(runStatus(denied, new Date()).decision).toBe('retry');

    const config = JSON.stringify({ auths: { [host]: { auth: Buffer.from(`${creds.username}:${creds.password}`).toString('base64') } } });
    const secret: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'pull', namespace: ns }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': Buffer.from(config).toString('base64') } };
    await client.apply(secret, { dryRun: false, force: true, fieldManager: 'flotilla-test' });
    await client.apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'deployer', namespace: ns }, imagePullSecrets: [{ name: 'missing' }, { name: 'pull' }] }, { dryRun: false, force: true, fieldManager: 'flotilla-test' });
    const ok = await reconcileProject(input, { generator, manager, sources });
    expect(ok.error).toBeUndefined();
    expect(ok.ok).toBe(true);

    // Credentials of the Project itself win over the service account's.
    const store = { registryCredentials: async () => ({ kind: 'basic' as const, username: 'nobody', password: 'wrong' }) };
    const wrong = await reconcileProject({ ...input, digest: undefined }, { generator, manager, sources, credentials: store });
    expect(wrong.error).toBeInstanceOf(ResolveError);
  });
});
