import { defaultPushModuleOptions, pushModule, RegistryClient } from '@flotilla/oci';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { harnessEnv } from '../../../../test/harness/env';
import { adminManager, createTenant, pushProject, unique } from '../../../../libs/engine/testdata/harness';
import { EventsService } from '../events/events.service';
import { startTestHub, type TestHub } from '../../test/hub';
import { greeterProjectFiles as projectFiles, GREETER_MODULE_DIR as MODULE_DIR } from '../../test/push-fixtures';
import { CountingResolver, eventually, fastScheduler } from '../../test/scheduler-fixtures';

// Push mode end to end with the real engine: the hub on the harness
// PostgreSQL applies a Project from the harness registry to the harness
// kube-apiserver, registered through the REST API as a push cluster.

jest.setTimeout(180_000);

describe('push mode with the engine', () => {
  let hub: TestHub;
  let ns: string;
  let repo: string;
  let moduleUrl: string;
  /** sockets opened to the API server, and requests sent on them, as undici reports them */
  const kubeSockets = new Set<unknown>();
  const sentOn: unknown[] = [];
  const onConnected = (message: unknown) => {
    const { connectParams, socket } = message as { connectParams?: { port?: string | number }; socket: unknown };
    if (String(connectParams?.port) === new URL(harnessEnv().kube.server).port) kubeSockets.add(socket);
  };
  const onSend = (message: unknown) => void sentOn.push((message as { socket: unknown }).socket);
  const registry = new RegistryClient();
  const { manager } = adminManager();

  async function configMaps(): Promise<Record<string, Record<string, string>>> {
    const list = await manager.client.list('v1', 'ConfigMap', { namespace: ns });
    return Object.fromEntries(list.filter((c) => c.metadata.name !== 'kube-root-ca.crt').map((c) => [c.metadata.name, (c.data ?? {}) as Record<string, string>]));
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async function target(): Promise<any> {
    return (await hub.call('GET', '/api/v1/projects/greet/targets/spoke-1')).body;
  }

  beforeAll(async () => {
    const host = harnessEnv().registry.host;
    moduleUrl = `oci://${host}/${unique('modules/greeter')}`;
    await pushModule(registry, moduleUrl, MODULE_DIR, defaultPushModuleOptions('1.0.0'));
    repo = `oci://${host}/${unique('projects/greet')}`;
    ns = await createTenant(manager.client, 'greet');
    // no periodic health check: its probe would open a connection of its own while sockets are counted
    hub = await startTestHub('postgres', { scheduler: fastScheduler({ sourcePollMs: 500, concurrency: 2, hubId: 'hub-push', clusterCheckMs: 3_600_000 }) }, { scheduler: { tagResolver: new CountingResolver() } });
    const kube = harnessEnv().kube;
    const cluster = await hub.call('POST', '/api/v1/clusters', {
      body: { name: 'spoke-1', group: 'staging', mode: 'push', endpoint: { server: kube.server, caData: kube.caData }, credentials: { token: kube.admin.token } },
    });
    expect(cluster.status).toBe(201);
    subscribe('undici:client:connected', onConnected);
    subscribe('undici:client:sendHeaders', onSend);
  });

  afterAll(async () => {
    unsubscribe('undici:client:connected', onConnected);
    unsubscribe('undici:client:sendHeaders', onSend);
    await hub?.close();
    await manager.client.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns }).catch(() => undefined);
    await manager.client.connection.close();
  });

  it('applies a Project with two components and records status, runs, events and metrics', async () => {
    const digest = await pushProject(registry, repo, projectFiles(moduleUrl, ns, { cache: true, shout: false }));
    const created = await hub.call('POST', '/api/v1/projects', {
      body: { name: 'greet', namespace: ns, serviceAccountName: 'deployer', source: { repository: repo, tag: 'latest' }, targets: { names: ['spoke-1'] } },
    });
    expect(created.status).toBe(201);
    const t = await eventually('Ready', async () => ((await target()).phase === 'Ready' ? target() : undefined), 120_000);
    expect(t).toMatchObject({ lastAppliedRevision: `latest@${digest}`, observedGeneration: 1, attempt: 0 });
    expect(t.components.map((c: { name: string; status: string }) => `${c.name}:${c.status}`).sort()).toEqual(['app:Succeeded', 'infra:Succeeded']);

    const cms = await configMaps();
    expect(cms['web-greeting']).toEqual({ greeting: 'web', cluster: 'spoke-1' });
    expect(Object.keys(cms).sort()).toEqual(['cache-greeting', 'db-greeting', 'web-greeting']);
    const inventory = await manager.client.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'timoni.web' });
    expect(inventory.metadata.labels).toMatchObject({ 'project.flotilla.dev/name': 'greet', 'project.flotilla.dev/component': 'app' });

    const run = (await hub.call('GET', '/api/v1/projects/greet/targets/spoke-1/runs')).body.items[0];
    expect(run).toMatchObject({ result: 'Succeeded', trigger: 'Created', revision: `latest@${digest}`, leaseOwner: 'hub-push' });
    expect(run.instances).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'web', component: 'app', action: 'applied', counts: expect.objectContaining({ created: 1 }) })]));
    const events = (await hub.call('GET', '/api/v1/projects/greet/events?limit=100')).body.items;
    expect(events.some((e: { reason: string; message: string }) => e.reason === 'InstanceApplied' && e.message.includes('ConfigMap'))).toBe(true);
    // posted by the events sink in the background
    await eventually('the core/v1 Event on timoni.web', async () => {
      const kubeEvents = await manager.client.list('v1', 'Event', { namespace: ns });
      return kubeEvents.some((e) => e.reason === 'InstanceApplied' && (e.involvedObject as { name: string }).name === 'timoni.web') ? true : undefined;
    });
    await hub.app.get(EventsService).flush();

    const metrics = (await hub.call('GET', '/metrics')).text;
    const info = metrics.split('\n').find((l) => l.startsWith('timoni_instance_info{') && l.includes('instance_name="web"'));
    expect(info).toMatch(/\} 1$/);
    for (const label of [`instance_namespace="${ns}"`, 'ready="true"', 'module_version="1.0.0"', 'project_name="greet"', `project_namespace="${ns}"`, 'project_component="app"', `project_source="${repo}"`, `project_revison="latest@${digest}"`, 'cluster_name="spoke-1"']) {
      expect(info).toContain(label);
    }
    expect(info).toMatch(/module_name="[^"]+"/);
    expect(metrics).toMatch(/flotilla_kube_api_requests_total\{code="200",method="GET"/);
    // the sink posted the run's Events through the run's own connection: one discovery of core/v1, the run's
    expect(metrics).toMatch(/^flotilla_kube_api_requests_total\{code="200",method="GET",path="\/api\/v1"\} 1$/m);
  });

  it('detects a new revision under the same tag, applies it and prunes the instance that left, on the sockets of the last run', async () => {
    const firstRun = new Set(kubeSockets);
    expect(firstRun.size).toBeGreaterThan(0);
    sentOn.length = 0;
    const digest = await pushProject(registry, repo, projectFiles(moduleUrl, ns, { cache: false, shout: true }));
    await eventually('the new revision', async () => ((await target()).lastAppliedRevision === `latest@${digest}` ? true : undefined), 60_000);
    // the cluster's connection outlived the first run with its sockets open (PushConnections):
    // the second run sent requests on sockets the first one opened
    expect(sentOn.filter((socket) => firstRun.has(socket)).length).toBeGreaterThan(0);
    const cms = await configMaps();
    expect(Object.keys(cms).sort()).toEqual(['db-greeting', 'web-greeting', 'web-shout']);
    const run = (await hub.call('GET', '/api/v1/projects/greet/targets/spoke-1/runs')).body.items[0];
    expect(run).toMatchObject({ trigger: 'NewRevision', result: 'Succeeded' });
    expect(run.instances).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'cache', action: 'pruned', counts: expect.objectContaining({ deleted: 1 }) })]));
  });

  it('keeps the last good objects when a revision is broken, says why, and recovers with a fixed one', async () => {
    const good = (await target()).lastAppliedRevision;
    const broken = await pushProject(registry, repo, projectFiles(moduleUrl, ns, { cache: false, shout: true, broken: true }));
    // a second attempt on the same revision proves the broken revision is retried with backoff
    const failed = await eventually('the failure, retried', async () => {
      const t = await target();
      return t.phase === 'Failed' && t.attempt >= 2 ? t : undefined;
    }, 60_000);
    expect(failed.lastAppliedRevision).toBe(good);
    expect(failed.conditions).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'Stalled', status: 'True' })]));
    expect(Number.isNaN(Date.parse(failed.nextRunAt))).toBe(false);
    const ready = failed.conditions.find((c: { type: string }) => c.type === 'Ready');
    expect(ready).toMatchObject({ status: 'False' });
    expect(ready.message).toMatch(/volume/);
    const run = (await hub.call('GET', '/api/v1/projects/greet/targets/spoke-1/runs')).body.items[0];
    expect(run).toMatchObject({ result: 'Failed', revision: `latest@${broken}` });
    expect(Object.keys(await configMaps()).sort()).toEqual(['db-greeting', 'web-greeting', 'web-shout']);

    const fixed = await pushProject(registry, repo, projectFiles(moduleUrl, ns, { cache: false, shout: false }));
    await eventually('recovery', async () => {
      const t = await target();
      return t.phase === 'Ready' && t.lastAppliedRevision === `latest@${fixed}` ? true : undefined;
    }, 60_000);
    expect(Object.keys(await configMaps()).sort()).toEqual(['db-greeting', 'web-greeting']);
  });

  it("refuses, in a run and in a dry run, an instance a tenant's bundle puts outside its namespaces", async () => {
    // the Project's namespace is the tenant's; its bundles send every instance to another one
    const elsewhere = await createTenant(manager.client, 'elsewhere');
    const tenantRepo = `oci://${harnessEnv().registry.host}/${unique('projects/team-x')}`;
    await pushProject(registry, tenantRepo, projectFiles(moduleUrl, elsewhere, { cache: false, shout: false }));
    const tenant = await hub.call('POST', '/api/v1/tenants', {
      body: { name: 'team-x', destinations: { groups: ['staging'] }, namespaces: [ns], serviceAccounts: ['deployer'], repositories: [tenantRepo] },
    });
    expect(tenant.status).toBe(201);
    const created = await hub.call('POST', '/api/v1/projects', {
      body: { name: 'team-x-greet', tenant: 'team-x', namespace: ns, serviceAccountName: 'deployer', source: { repository: tenantRepo, tag: 'latest' }, targets: { names: ['spoke-1'] } },
    });
    expect(created.status).toBe(201);
    const refused = await eventually('the run refused', async () => {
      const t = (await hub.call('GET', '/api/v1/projects/team-x-greet/targets/spoke-1')).body;
      return t.conditions?.some((c: { reason: string }) => c.reason === 'TenantPolicyRefused') ? t : undefined;
    }, 60_000);
    const ready = refused.conditions.find((c: { type: string }) => c.type === 'Ready');
    expect(ready.message).toContain(`would go to namespace "${elsewhere}", outside tenant "team-x"'s namespaces [${ns}] (rule: namespaces)`);
    const applied = await manager.client.list('v1', 'ConfigMap', { namespace: elsewhere });
    expect(applied.filter((c) => c.metadata.name !== 'kube-root-ca.crt')).toEqual([]);

    const diff = await hub.call('POST', '/api/v1/projects/team-x-greet/diff', { body: {} });
    expect(diff.status).toBe(200);
    const [cluster] = diff.body.clusters;
    expect(cluster.objects).toEqual([]);
    // a dry run does not stop at the first component: each is refused for its own instances
    expect(cluster.errors).toEqual(
      ['infra', 'app'].map((component) => expect.objectContaining({ component, message: expect.stringContaining(`would go to namespace "${elsewhere}", outside tenant "team-x"'s namespaces`) })),
    );
    expect((await hub.call('DELETE', '/api/v1/projects/team-x-greet?instances=orphan')).status).toBe(200);
  });

  it('removes the instances from the cluster before deleting the Project', async () => {
    expect((await hub.call('DELETE', '/api/v1/projects/greet?instances=delete')).status).toBe(202);
    await eventually('the Project to be gone', async () => ((await hub.call('GET', '/api/v1/projects/greet')).status === 404 ? true : undefined), 60_000);
    expect(await configMaps()).toEqual({});
    const secrets = await manager.client.list('v1', 'Secret', { namespace: ns, labelSelector: 'project.flotilla.dev/name=greet' });
    expect(secrets).toEqual([]);
  });
});
