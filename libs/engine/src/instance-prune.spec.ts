import { ResourceManager, applyInstance, defaultInstanceApplyOptions, serviceAccountImpersonation } from '@flotilla/kube';
import { listProjectInstances, pruneInstance } from './instance-prune';
import { instanceLabels } from './labels';
import { configMap } from './test-support';
import type { ProjectSpec } from './types';
import { adminManager, createTenant } from '../testdata/harness';

const { connection, manager } = adminManager();
afterAll(() => connection.close());

const spec = (ns: string): ProjectSpec => ({ name: 'prune', namespace: ns, source: { repository: 'oci://r/p', tag: 'latest', path: 'project.cue' }, serviceAccountName: 'deployer', annotations: {} });

async function install(rm: ResourceManager, p: ProjectSpec, name: string, component: string) {
  await applyInstance(
    rm,
    { name, namespace: p.namespace, labels: instanceLabels(p, component, 'b'), module: { name: 'm', repository: 'oci://r/m', version: '1.0.0', digest: 'sha256:1' }, values: '', images: [], steps: [{ name: 'main', objects: [configMap(p.namespace, `${name}-cm`, { v: '1' })] }] },
    { ...defaultInstanceApplyOptions(), wait: false },
  );
}

describe('instances of a Project on the cluster (harness API server)', () => {
  it('lists them cluster-wide for an admin, per namespace for a namespace-scoped service account, and prunes one', async () => {
    const ns = await createTenant(manager.client, 'prune');
    const p = spec(ns);
    const tenant = manager.impersonate(serviceAccountImpersonation(ns, 'deployer'));
    await install(tenant, p, 'one', 'a');
    await install(tenant, p, 'two', 'b');
    await install(tenant, { ...p, name: 'other' }, 'three', 'a');

    const byAdmin = await listProjectInstances(manager, p, []);
    expect(byAdmin.sort((x, y) => x.name.localeCompare(y.name))).toEqual([{ name: 'one', namespace: ns, component: 'a' }, { name: 'two', namespace: ns, component: 'b' }]);
    // The service account may not list Secrets cluster-wide: only the namespaces given are searched.
    expect(await listProjectInstances(tenant, p, [])).toEqual([]);
    expect((await listProjectInstances(tenant, p, [ns, 'kube-system'])).map((i) => i.name).sort()).toEqual(['one', 'two']);

    const pruned = await pruneInstance(tenant, { name: 'two', namespace: ns, component: 'b' }, 10_000);
    expect(pruned.error).toBeUndefined();
    expect(pruned.changes.map((c) => [c.subject, c.action])).toEqual([[`ConfigMap/${ns}/two-cm`, 'deleted']]);
    expect(pruned.counts.deleted).toBe(1);
    expect(await manager.storage.read(ns, 'two')).toBeUndefined();
    expect((await listProjectInstances(tenant, p, [ns])).map((i) => i.name)).toEqual(['one']);
  });

  it('a prune that cannot finish in time is a PruneError', async () => {
    const ns = await createTenant(manager.client, 'prune-slow');
    const p = spec(ns);
    await install(manager, p, 'stuck', 'a');
    // A finalizer nobody removes keeps the object around (no controllers run on the harness).
    await manager.client.patch({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'stuck-cm' }, { metadata: { finalizers: ['flotilla.test/hold'] } }, 'merge', { fieldManager: 'flotilla-test' });
    const pruned = await pruneInstance(manager, { name: 'stuck', namespace: ns, component: 'a' }, 800);
    expect(pruned.error?.reason).toBe('PruneFailed');
    expect(pruned.error?.message).toContain(`prune instance ${ns}/stuck`);
    // names the object that holds it and why, not only that time ran out
    expect(pruned.error?.message).toMatch(new RegExp(`ConfigMap/${ns}/stuck-cm status: 'Terminating'`));
    expect(pruned.error?.message).not.toContain('deadline of');
    expect(await manager.storage.read(ns, 'stuck')).toBeDefined();
    await manager.client.patch({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'stuck-cm' }, { metadata: { finalizers: null } }, 'merge', { fieldManager: 'flotilla-test' });
  });
});
