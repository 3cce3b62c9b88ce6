import { configMap, createNamespace, job, testCluster, uniqueName } from '../testdata/cluster';
import { eventually } from '../testdata/eventually';
import { DryRunError, InvalidObjectError, StagedApplyError } from './errors';
import { defaultApplyOptions, type ApplyOptions } from './resources-apply';
import type { KubeObject } from './types';

const { connection, manager, client } = testCluster();
afterAll(() => connection.close());

const instance = (namespace: string) => ({ name: 'app', namespace });
const fastOptions = (): ApplyOptions => ({
  ...defaultApplyOptions(),
  stageWait: { ...defaultApplyOptions().stageWait, timeoutMs: 20_000, intervalMs: 200 },
  recreatePollMs: 100,
  recreateTimeoutMs: 20_000,
});

function crd(group: string): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
}

describe('applyAllStaged (real API server)', () => {
  it('applies a CRD and a resource of it in one step', async () => {
    const ns = await createNamespace(client, 'apply-crd');
    const group = `${uniqueName('g')}.flotilla.test`;
    const widget: KubeObject = { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w', namespace: ns }, spec: { size: 3 } };
    const objects = await manager.prepare([widget, crd(group)], instance(ns));
    const cs = await manager.applyAllStaged(objects, fastOptions());
    expect(cs.entries.map((e) => [e.subject, e.action])).toEqual([
      [`CustomResourceDefinition/widgets.${group}`, 'created'],
      [`Widget/${ns}/w`, 'created'],
    ]);
    const live = await client.get({ apiVersion: `${group}/v1`, kind: 'Widget', namespace: ns, name: 'w' });
    expect(live.spec).toEqual({ size: 3 });
    expect(live.metadata.labels).toMatchObject({ 'instance.timoni.sh/name': 'app', 'instance.timoni.sh/namespace': ns });
    const crdLive = await client.get({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: `widgets.${group}` });
    expect(crdLive.metadata.namespace).toBeUndefined();
  });

  it('keeps integers beyond 2^53 exact on the way to the API server and back, so they never read as drift', async () => {
    const ns = await createNamespace(client, 'apply-bigint');
    const group = `${uniqueName('g')}.flotilla.test`;
    const spec = { big: 9007199254740993n, min: -9223372036854775808n, small: 3 };
    const widget: KubeObject = { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w', namespace: ns }, spec };
    await manager.applyAllStaged(await manager.prepare([crd(group), widget], instance(ns)), fastOptions());
    const live = await client.get({ apiVersion: `${group}/v1`, kind: 'Widget', namespace: ns, name: 'w' });
    expect(live.spec).toEqual(spec);
    const again = await manager.applyAllStaged(await manager.prepare([crd(group), widget], instance(ns)), fastOptions());
    expect(again.entries.map((e) => e.action)).toEqual(['unchanged', 'unchanged']);
  });

  it('leaves undrifted objects untouched and reconfigures drifted ones', async () => {
    const ns = await createNamespace(client, 'apply-drift');
    const set = await manager.prepare([configMap(ns, 'a', { k: '1' }), configMap(ns, 'b', { k: '1' })], instance(ns));
    await manager.applyAllStaged(set, fastOptions());
    const before = await Promise.all(['a', 'b'].map((n) => client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: n })));

    const again = await manager.applyAllStaged(set, fastOptions());
    expect(again.entries.map((e) => e.action)).toEqual(['unchanged', 'unchanged']);
    const after = await Promise.all(['a', 'b'].map((n) => client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: n })));
    expect(after.map((o) => o.metadata.resourceVersion)).toEqual(before.map((o) => o.metadata.resourceVersion));

    const changed = await manager.prepare([configMap(ns, 'a', { k: '2' }), configMap(ns, 'b', { k: '1' })], instance(ns));
    const cs = await manager.applyAllStaged(changed, fastOptions());
    expect(cs.entries.map((e) => e.action)).toEqual(['configured', 'unchanged']);
    expect((await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'a' })).data).toEqual({ k: '2' });
  });

  it('fails on an immutable field change without force and recreates with it', async () => {
    const ns = await createNamespace(client, 'apply-immutable');
    await manager.applyAllStaged(await manager.prepare([job(ns, 'migrate', 'busybox:1')], instance(ns)), fastOptions());
    const first = await client.get({ apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name: 'migrate' });

    const changed = await manager.prepare([job(ns, 'migrate', 'busybox:2')], instance(ns));
    const err = await manager.applyAllStaged(changed, fastOptions()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StagedApplyError);
    const dryRun = (err as StagedApplyError).cause;
    expect(dryRun).toBeInstanceOf(DryRunError);
    expect((dryRun as DryRunError).immutable).toBe(true);
    expect((err as Error).message).toContain(`Job/${ns}/migrate`);
    expect((err as StagedApplyError).changeSet.entries).toEqual([]);

    const forced = await manager.prepare([job(ns, 'migrate', 'busybox:2', { 'action.timoni.sh/force': 'enabled' })], instance(ns));
    const cs = await manager.applyAllStaged(forced, fastOptions());
    expect(cs.entries[0]).toMatchObject({ action: 'created', reason: 'recreated: immutable field changed' });
    const second = await client.get({ apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name: 'migrate' });
    expect(second.metadata.uid).not.toBe(first.metadata.uid);

    // the global option works as well as the annotation
    const viaOption = await manager.prepare([job(ns, 'migrate', 'busybox:3')], instance(ns));
    const cs2 = await manager.applyAllStaged(viaOption, { ...fastOptions(), force: true });
    expect(cs2.entries[0].action).toBe('created');
  });

  it('a stage that is refused throws with the change set of the stages applied before it', async () => {
    const ns = await createNamespace(client, 'apply-partial');
    const role = uniqueName('flotilla-test:partial');
    const objects = await manager.prepare(
      [
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: role }, rules: [] },
        configMap(ns, 'fine', { k: '1' }),
        // refused by the API server's validation: not a DNS subdomain
        configMap(ns, 'Not_Valid', { k: '1' }),
      ],
      instance(ns),
    );
    const err = await manager.applyAllStaged(objects, fastOptions()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StagedApplyError);
    expect((err as StagedApplyError).stage).toBe('resources');
    expect((err as StagedApplyError).cause).toBeInstanceOf(DryRunError);
    expect((err as Error).message).toContain(`ConfigMap/${ns}/Not_Valid dry-run failed`);
    expect((err as StagedApplyError).changeSet.entries.map((e) => [e.subject, e.action])).toEqual([[`ClusterRole/${role}`, 'created']]);
    // the first stage is live; nothing of the refused stage was applied
    expect((await client.get({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: role })).metadata.uid).toBeTruthy();
    expect(await client.getOptional({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'fine' })).toBeUndefined();
  });

  it('keeps the objects of the failing stage applied before the one refused', async () => {
    const ns = await createNamespace(client, 'apply-quota');
    // Dry runs do not count against a quota, so both pass; the second real create is refused.
    // The namespace holds kube-root-ca.crt already: room for one more, once the quota controller has counted it.
    const quota = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'one', namespace: ns }, spec: { hard: { configmaps: '2' } } };
    await client.apply(quota, { dryRun: false, force: true, fieldManager: 'flotilla-test' });
    await eventually('the quota controller to count the namespace\'s ConfigMaps', async () => {
      const q = await client.get({ apiVersion: 'v1', kind: 'ResourceQuota', namespace: ns, name: 'one' });
      return (q.status as { used?: Record<string, string> } | undefined)?.used?.configmaps === '1';
    });
    const objects = await manager.prepare([configMap(ns, 'a', {}), configMap(ns, 'b', {})], instance(ns));
    const err = await manager.applyAllStaged(objects, fastOptions()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StagedApplyError);
    expect((err as Error).message).toContain(`ConfigMap/${ns}/b apply failed`);
    expect((err as StagedApplyError).changeSet.entries.map((e) => [e.subject, e.action])).toEqual([[`ConfigMap/${ns}/a`, 'created']]);
  });

  it('skips one-off objects that exist', async () => {
    const ns = await createNamespace(client, 'apply-oneoff');
    const oneOff = (v: string) => configMap(ns, 'seed', { v }, { annotations: { 'action.timoni.sh/one-off': 'enabled' } });
    await manager.applyAllStaged(await manager.prepare([oneOff('1')], instance(ns)), fastOptions());
    const cs = await manager.applyAllStaged(await manager.prepare([oneOff('2')], instance(ns)), fastOptions());
    expect(cs.entries[0]).toMatchObject({ action: 'skipped' });
    expect((await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'seed' })).data).toEqual({ v: '1' });
  });

  it('takes over fields kubectl owned, so removing them from the set removes them live', async () => {
    const ns = await createNamespace(client, 'apply-takeover');
    // what `kubectl apply` (client-side) leaves behind
    const kubectlCreate = (name: string) =>
      connection.request({
        method: 'POST',
        path: `/api/v1/namespaces/${ns}/configmaps`,
        query: { fieldManager: 'kubectl-client-side-apply' },
        body: configMap(ns, name, { keep: '1', drop: '1' }, { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } }),
      });
    await kubectlCreate('legacy');
    await kubectlCreate('control');
    // control: without the takeover, kubectl keeps owning `drop` and it stays
    await manager.applyAllStaged(await manager.prepare([configMap(ns, 'control', { keep: '1' })], instance(ns)), { ...fastOptions(), takeOwnership: false });
    expect((await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'control' })).data).toEqual({ keep: '1', drop: '1' });
    const cs = await manager.applyAllStaged(await manager.prepare([configMap(ns, 'legacy', { keep: '1' })], instance(ns)), fastOptions());
    expect(cs.entries[0].action).toBe('configured');
    const live = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'legacy' });
    expect(live.data).toEqual({ keep: '1' });
    expect(live.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration']).toBeUndefined();
    expect(live.metadata.managedFields?.map((m) => m.manager)).toEqual(['timoni']);
  });

  it('drops the namespace of a cluster-scoped custom resource whose CRD is in the same set', async () => {
    const group = `${uniqueName('c')}.flotilla.test`;
    const clusterCrd = crd(group);
    (clusterCrd.spec as { scope: string }).scope = 'Cluster';
    const widget: KubeObject = { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w', namespace: 'ignored' } };
    const prepared = await manager.prepare([clusterCrd, widget], instance('x'));
    expect(prepared[1].metadata.namespace).toBeUndefined();
    const cs = await manager.applyAllStaged(prepared, fastOptions());
    expect(cs.entries.map((e) => e.subject)).toEqual([`CustomResourceDefinition/widgets.${group}`, 'Widget/w']);
  });

  it('rejects a namespaced object without namespace before applying anything', async () => {
    const err = await manager.prepare([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nons' } }], instance('x')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidObjectError);
    expect((err as Error).message).toBe('ConfigMap/nons: ConfigMap is namespaced: set metadata.namespace');
  });

  it('drops metadata.namespace from cluster-scoped kinds', async () => {
    const name = uniqueName('flotilla-test:reader');
    const role: KubeObject = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, namespace: 'ignored' }, rules: [] };
    const [prepared] = await manager.prepare([role], instance('x'));
    expect(prepared.metadata.namespace).toBeUndefined();
    const cs = await manager.applyAllStaged([prepared], fastOptions());
    expect(cs.entries[0]).toMatchObject({ subject: `ClusterRole/${name}`, action: 'created' });
  });
});
