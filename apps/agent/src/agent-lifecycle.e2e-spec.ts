import { adminManager, createTenant } from '../../../libs/engine/testdata/harness';
import { eventually } from '../../../libs/kube/testdata/eventually';
import { kubeconfigFile, startAgentProcess, testAgentArgs, type AgentProcess } from '../test/agent-process';
import { agentKubeconfig, installAgent } from '../test/install';
import { applyObject, condition, configMaps, pushSingle, getProject, inventorySecrets, projectEvents, projectObject, projectRepository, pushGreeter, pushGreeterModule } from '../test/project-fixtures';
import { PROJECT_API_VERSION, PROJECT_FINALIZER } from './project/project-resource';

// The compiled agent as a process, with the token of the service account the
// install manifests create (so its RBAC is proven enough), reconciling
// Projects from the harness registry into the harness API server.

jest.setTimeout(180_000);

describe('standalone agent: a Project from creation to deletion', () => {
  const { manager } = adminManager();
  const client = manager.client;
  let agent: AgentProcess;
  let ns: string;
  let repo: string;
  let moduleUrl: string;
  const project = () => getProject(client, ns, 'greet');
  const annotate = (annotations: Record<string, string | null>) =>
    client.patch({ apiVersion: PROJECT_API_VERSION, kind: 'Project', namespace: ns, name: 'greet' }, { metadata: { annotations } }, 'merge');

  beforeAll(async () => {
    await installAgent(client);
    const kubeconfig = kubeconfigFile(await agentKubeconfig(client));
    [moduleUrl, ns] = await Promise.all([pushGreeterModule(), createTenant(client, 'agent')]);
    repo = projectRepository();
    agent = startAgentProcess(
      testAgentArgs({ kubeconfig, identity: 'agent-lifecycle', namespace: ns }, ['--poll-interval=300ms', '--retry-initial=500ms', '--retry-max=2s', '--cluster-name=spoke-a', '--cluster-group=staging']),
    );
    await agent.url;
  });

  afterAll(async () => {
    await agent?.stop();
    await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns }).catch(() => undefined);
    await client.connection.close();
  });

  it('applies a new Project: Ready, objects and inventory, finalizer, events and metrics', async () => {
    const digest = await pushGreeter(repo, moduleUrl, ns, { cache: true, shout: false });
    await applyObject(client, projectObject('greet', ns, repo));
    const ready = await eventually('Ready', async () => {
      const p = await project();
      return condition(p, 'Ready')?.status === 'True' ? p : undefined;
    }, 120_000);
    expect(ready.status).toMatchObject({ observedGeneration: 1, lastAppliedRevision: `latest@${digest}`, lastAttemptedRevision: `latest@${digest}`, failures: 0, namespaces: [ns] });
    expect(condition(ready, 'Ready')?.reason).toBe('ReconciliationSucceeded');
    expect(ready.metadata.finalizers).toEqual([PROJECT_FINALIZER]);
    expect(Date.parse(ready.status!.nextReconcileAt!)).toBeGreaterThan(Date.now());
    const components = ready.status!.components!;
    expect(components.map((c) => `${c.name}:${c.status}`).sort()).toEqual(['app:Succeeded', 'infra:Succeeded']);
    const web = components.find((c) => c.name === 'app')!.instances[0];
    expect(web).toMatchObject({ name: 'web', namespace: ns, ready: true, objects: 1, module: { version: '1.0.0' } });

    const cms = await configMaps(client, ns);
    expect(Object.keys(cms).sort()).toEqual(['cache-greeting', 'db-greeting', 'web-greeting']);
    expect(cms['web-greeting']).toEqual({ greeting: 'web', cluster: 'spoke-a' });
    expect(await inventorySecrets(client, ns)).toEqual(['timoni.cache', 'timoni.db', 'timoni.web']);

    const events = await eventually('the events on the Project', async () => {
      const all = await projectEvents(client, ns, 'greet');
      return all.some((e) => e.reason === 'ReconciliationSucceeded') && all.filter((e) => e.reason === 'InstanceApplied').length >= 3 ? all : undefined;
    });
    const webEvent = events.find((e) => e.reason === 'InstanceApplied' && e.message.includes(`instance ${ns}/web`))!;
    expect(webEvent.message).toMatch(/module \S+@1\.0\.0 applied in \d+ ms: created 1/);
    expect(webEvent.message).toContain(`ConfigMap/${ns}/web-greeting`);

    const metrics = await (await fetch(`${await agent.url}/metrics`)).text();
    const info = metrics.split('\n').find((l) => l.startsWith('timoni_instance_info{') && l.includes('instance_name="web"'));
    expect(info).toMatch(/\} 1$/);
    for (const label of [`instance_namespace="${ns}"`, 'ready="true"', 'module_version="1.0.0"', 'project_name="greet"', `project_namespace="${ns}"`, 'project_component="app"', `project_source="${repo}"`, `project_revison="latest@${digest}"`]) {
      expect(info).toContain(label);
    }
    expect(metrics).toMatch(/timoni_instance_reconcile_duration_seconds_count\{[^}]*instance_name="web"[^}]*\} [1-9]/);
    expect(metrics).toMatch(/controller_runtime_reconcile_total\{controller="project",result="requeue_after"\} [1-9]/);
    expect(metrics).toMatch(/rest_client_requests_total\{code="200",method="GET",host="127\.0\.0\.1:\d+"\} [1-9]/);
    expect(metrics).toMatch(/workqueue_adds_total\{name="project"\} [1-9]/);
    expect(metrics).toMatch(/controller_runtime_max_concurrent_reconciles\{controller="project"\} 4/);
    expect((await fetch(`${await agent.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${await agent.url}/healthz`)).status).toBe(200);
  });

  it('applies a new digest pushed under the tag and prunes the instance that left', async () => {
    const digest = await pushGreeter(repo, moduleUrl, ns, { cache: false, shout: true });
    const p = await eventually('the new digest applied', async () => {
      const q = await project();
      return q?.status?.lastAppliedRevision === `latest@${digest}` ? q : undefined;
    }, 60_000);
    expect(condition(p, 'Ready')?.status).toBe('True');
    expect(Object.keys(await configMaps(client, ns)).sort()).toEqual(['db-greeting', 'web-greeting', 'web-shout']);
    expect(await inventorySecrets(client, ns)).toEqual(['timoni.db', 'timoni.web']);
    await eventually('the prune event', async () => (await projectEvents(client, ns, 'greet')).some((e) => e.reason === 'InstancePruned' && e.message.includes(`${ns}/cache`)));
  });

  it('stalls on a broken revision, keeps the objects, retries, and recovers with a fix', async () => {
    const good = (await project())!.status!.lastAppliedRevision;
    const broken = await pushGreeter(repo, moduleUrl, ns, { cache: false, shout: true, broken: true });
    const failed = await eventually('the failure, retried', async () => {
      const p = await project();
      return p?.status?.lastAttemptedRevision === `latest@${broken}` && (p.status.failures ?? 0) >= 2 ? p : undefined;
    }, 90_000);
    expect(failed.status!.lastAppliedRevision).toBe(good);
    expect(condition(failed, 'Stalled')?.status).toBe('True');
    expect(condition(failed, 'Ready')).toMatchObject({ status: 'False' });
    expect(condition(failed, 'Ready')!.message).toMatch(/volume/);
    expect(Object.keys(await configMaps(client, ns)).sort()).toEqual(['db-greeting', 'web-greeting', 'web-shout']);
    const warnings = (await projectEvents(client, ns, 'greet')).filter((e) => e.type === 'Warning');
    expect(warnings.some((e) => /volume/.test(e.message))).toBe(true);

    const fixed = await pushGreeter(repo, moduleUrl, ns, { cache: false, shout: false });
    const recovered = await eventually('recovery', async () => {
      const p = await project();
      return condition(p, 'Ready')?.status === 'True' && p?.status?.lastAppliedRevision === `latest@${fixed}` ? p : undefined;
    }, 60_000);
    expect(recovered.status!.failures).toBe(0);
    expect(condition(recovered, 'Stalled')).toBeUndefined();
    expect(Object.keys(await configMaps(client, ns)).sort()).toEqual(['db-greeting', 'web-greeting']);
  });

  it('suspends, refuses a manual reconcile while suspended, resumes, and reconciles on request', async () => {
    const before = (await project())!.status!.lastAppliedRevision;
    await annotate({ 'reconcile.timoni.sh/suspend': 'true' });
    await eventually('the Suspended event', async () => (await projectEvents(client, ns, 'greet')).some((e) => e.reason === 'Suspended' && e.message.includes('suspended by annotation')));
    const pending = await pushGreeter(repo, moduleUrl, ns, { cache: true, shout: false });
    await annotate({ 'reconcile.timoni.sh/requestedAt': 'while-suspended' });
    await eventually('the refused request', async () => (await projectEvents(client, ns, 'greet')).some((e) => e.reason === 'Suspended' && e.message.includes('"while-suspended" not handled')));
    const suspended = (await project())!;
    expect(suspended.status!.lastAppliedRevision).toBe(before);
    expect(suspended.status!.lastHandledReconcileAt).toBeUndefined();

    await annotate({ 'reconcile.timoni.sh/suspend': null });
    const resumed = await eventually('the pending digest applied after resume', async () => {
      const p = await project();
      return p?.status?.lastAppliedRevision === `latest@${pending}` ? p : undefined;
    }, 60_000);
    expect(resumed.status!.lastHandledReconcileAt).toBe('while-suspended');

    const runsBefore = (await projectEvents(client, ns, 'greet')).filter((e) => e.reason === 'ReconciliationSucceeded').length;
    await annotate({ 'reconcile.timoni.sh/requestedAt': 'by-hand-1' });
    await eventually('the request handled', async () => (await project())?.status?.lastHandledReconcileAt === 'by-hand-1');
    await eventually('a run for it', async () => (await projectEvents(client, ns, 'greet')).filter((e) => e.reason === 'ReconciliationSucceeded').length > runsBefore);
  });

  it('keeps the instances of a Project deleted with deletion policy Orphan', async () => {
    const keeperRepo = projectRepository();
    const digest = await pushSingle(keeperRepo, moduleUrl, ns, 'kept');
    await applyObject(client, projectObject('keeper', ns, keeperRepo, { 'reconcile.timoni.sh/deletionPolicy': 'Orphan' }));
    await eventually('keeper Ready', async () => (await getProject(client, ns, 'keeper'))?.status?.lastAppliedRevision === `latest@${digest}`, 120_000);
    expect(await inventorySecrets(client, ns)).toEqual(['timoni.cache', 'timoni.db', 'timoni.kept', 'timoni.web']);
    await client.delete({ apiVersion: PROJECT_API_VERSION, kind: 'Project', namespace: ns, name: 'keeper' });
    await eventually('keeper gone', async () => (await getProject(client, ns, 'keeper')) === undefined, 60_000);
    expect(await inventorySecrets(client, ns)).toEqual(['timoni.cache', 'timoni.db', 'timoni.kept', 'timoni.web']);
    expect((await configMaps(client, ns))['kept-greeting']).toEqual({ greeting: 'kept', cluster: '' });
  });

  it('deletes the instances when the Project is deleted', async () => {
    await client.delete({ apiVersion: PROJECT_API_VERSION, kind: 'Project', namespace: ns, name: 'greet' });
    await eventually('the Project gone', async () => (await project()) === undefined, 60_000);
    // only the orphaned instance of the other Project stays
    expect(Object.keys(await configMaps(client, ns))).toEqual(['kept-greeting']);
    expect(await inventorySecrets(client, ns)).toEqual(['timoni.kept']);
    const metrics = await (await fetch(`${await agent.url}/metrics`)).text();
    expect(metrics).not.toMatch(/timoni_instance_info\{[^}]*project_name="greet"/);
  });
});
