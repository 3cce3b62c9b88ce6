// Owners, deletion and the namespaces that still hold instances, against the
// harness API server (in-memory generator, admin identity listing cluster-wide
// as a hub with a cluster-admin service account would).
import type { KubeObject } from '@flotilla/kube';
import { buildRunReport } from './run-report';
import { deleteProject } from './project-delete';
import { reconcileProject, type ReconcileDeps } from './project-reconcile';
import { PROJECT_OWNER_LABEL } from './labels';
import { SourceCache } from './source-fetch';
import { configMap, MemoryGenerator } from './test-support';
import type { ProjectSpec, ReconcileInput } from './types';
import { adminManager, createTenant, pushProject, registryClient, registryHost, unique } from '../testdata/harness';

jest.setTimeout(120_000);

const { connection, manager } = adminManager();
const client = manager.client;
const sources = new SourceCache();
afterAll(() => connection.close());

const configMaps = async (ns: string) => (await client.list('v1', 'ConfigMap', { namespace: ns })).map((c) => c.metadata.name).filter((n) => n !== 'kube-root-ca.crt').sort();

describe('owners, deletion and remembered namespaces', () => {
  let home: string;
  let spokeA: string;
  let spokeB: string;
  let project: ProjectSpec;

  beforeAll(async () => {
    [home, spokeA, spokeB] = await Promise.all([createTenant(client, 'own-home'), createTenant(client, 'own-a'), createTenant(client, 'own-b')]);
    const repository = `oci://${registryHost()}/projects/${unique('owners')}`;
    await pushProject(registryClient(), repository, { 'project.cue': '// read by the in-memory generator only\n' });
    project = { name: 'shop', namespace: home, source: { repository, tag: 'latest', path: 'project.cue' }, serviceAccountName: 'deployer', annotations: {} };
  });

  // One API server registered twice: each registration puts the instance in its own namespace.
  const generatorFor = (ns: string, extra: KubeObject[] = []) => new MemoryGenerator([{ name: 'app', needs: [], wait: false, instances: { web: { namespace: ns, configMaps: { web: { v: '1' } }, objects: extra } } }]);
  const deps = (generator: MemoryGenerator, options: ReconcileDeps['options'] = {}): ReconcileDeps => ({ generator, manager, sources, options: { impersonate: false, ...options } });
  const input = (cluster: string, owner: string, extra: Partial<ReconcileInput> = {}): ReconcileInput => ({ project, cluster: { name: cluster, group: 'g', kubeVersion: '1.36.0' }, owner, ...extra });

  it('each registration prunes only its own instances, and says which it left alone', async () => {
    const a1 = await reconcileProject(input('spoke-a', 'reg-a'), deps(generatorFor(spokeA)));
    const b1 = await reconcileProject(input('spoke-b', 'reg-b'), deps(generatorFor(spokeB)));
    expect([a1.ok, b1.ok]).toEqual([true, true]);
    const inventory = await client.get({ apiVersion: 'v1', kind: 'Secret', namespace: spokeA, name: 'timoni.web' });
    expect(inventory.metadata.labels?.[PROJECT_OWNER_LABEL]).toBe('reg-a');

    const a2 = await reconcileProject(input('spoke-a', 'reg-a'), deps(generatorFor(spokeA)));
    expect(a2.ok).toBe(true);
    expect(a2.pruned).toEqual([]);
    expect(a2.warnings).toEqual([`instance ${spokeB}/web is owned by reg-b, not reg-a: not pruned`]);
    expect(await configMaps(spokeB)).toEqual(['web']);
  });

  it('deleting the Project from one registration removes only its instances', async () => {
    const result = await deleteProject({ ...input('spoke-a', 'reg-a'), knownNamespaces: [spokeA] }, { manager, options: { impersonate: false } });
    expect(result.ok).toBe(true);
    expect(result.pruned.map((p) => `${p.namespace}/${p.name}`)).toEqual([`${spokeA}/web`]);
    expect(result.namespaces).toEqual([]);
    const report = buildRunReport(result, { attempt: 0, intervalMs: 60_000 }, 'delete');
    expect(report.removed).toEqual([expect.objectContaining({ name: 'web', action: 'deleted', counts: expect.objectContaining({ deleted: 1 }) })]);
    expect(await configMaps(spokeA)).toEqual([]);
    expect(await configMaps(spokeB)).toEqual(['web']);
  });

  it('a namespace whose instance could not be pruned is reported again, so the next run still searches it', async () => {
    // an object held by a finalizer nobody clears: its prune runs out of time
    const held = configMap(spokeA, 'held', { v: '1' });
    held.metadata.finalizers = ['flotilla.test/hold'];
    const first = await reconcileProject(input('spoke-a', 'reg-a'), deps(generatorFor(spokeA, [held])));
    expect(first.ok).toBe(true);
    // the instance moves elsewhere: the old one must go, and cannot
    const moved = new MemoryGenerator([{ name: 'app', needs: [], wait: false, instances: { api: { namespace: home, configMaps: { api: { v: '1' } } } } }]);
    const second = await reconcileProject(input('spoke-a', 'reg-a'), deps(moved, { pruneTimeoutMs: 300 }));
    expect(second.pruned.map((p) => [`${p.namespace}/${p.name}`, p.error?.reason])).toEqual([[`${spokeA}/web`, 'PruneFailed']]);
    expect(second.namespaces).toEqual([home, spokeA].sort());
    const report = buildRunReport(second, { attempt: 0, intervalMs: 60_000 });
    expect(report.ok).toBe(false);
    expect(report.namespaces).toEqual([home, spokeA].sort());

    // once the finalizer is gone, the run given those namespaces finishes the prune
    await client.connection.request({ method: 'PATCH', path: `/api/v1/namespaces/${spokeA}/configmaps/held`, body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
    const third = await reconcileProject(input('spoke-a', 'reg-a', { knownNamespaces: second.namespaces }), deps(moved));
    expect(third.ok).toBe(true);
    expect(third.namespaces).toEqual([home]);
  });
});
