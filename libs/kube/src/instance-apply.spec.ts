import { configMap, createNamespace, deployment, testCluster, uniqueName } from '../testdata/cluster';
import { InstanceOwnershipError, OwnershipConflictError, ReadinessError, StagedApplyError } from './errors';
import { defaultInstanceApplyOptions, applyInstance, type InstanceApplyInput, type InstanceApplyOptions } from './instance-apply';
import { recordObjects } from './instance-state';
import type { ChangeSet, KubeObject } from './types';

const { connection, manager, client } = testCluster();
afterAll(() => connection.close());

const options = (timeoutMs = 10_000): InstanceApplyOptions => {
  const o = defaultInstanceApplyOptions();
  return { ...o, waitOptions: { ...o.waitOptions, timeoutMs, intervalMs: 100, initialIntervalMs: 50 } };
};

const input = (ns: string, objects: KubeObject[], bundle = 'apps'): InstanceApplyInput => ({
  name: 'app',
  namespace: ns,
  labels: { 'bundle.timoni.sh/name': bundle },
  module: { name: 'timoni.sh/test', repository: 'oci://127.0.0.1/test', version: '1.0.0', digest: 'sha256:1' },
  values: 'values: {}\n',
  images: ['busybox:1'],
  steps: [{ name: 'main', objects }],
});

// every namespace also gets kube-root-ca.crt from the controller manager
const names = async (ns: string) => (await client.list('v1', 'ConfigMap', { namespace: ns })).map((o) => o.metadata.name).filter((n) => n !== 'kube-root-ca.crt').sort();

describe('applyInstance (real API server)', () => {
  it('installs, then upgrades pruning what left the inventory and finalising the state', async () => {
    const ns = await createNamespace(client, 'inst');
    const first = await applyInstance(manager, input(ns, [configMap(ns, 'a', {}), configMap(ns, 'b', {})]), options());
    expect(first.installed).toBe(true);
    expect(first.applied.entries.map((e) => e.action)).toEqual(['created', 'created']);

    const second = await applyInstance(manager, input(ns, [configMap(ns, 'a', { x: '1' })]), options());
    expect(second.installed).toBe(false);
    expect(second.applied.entries.map((e) => [e.ref.name, e.action])).toEqual([['a', 'configured']]);
    expect(second.pruned.entries.map((e) => [e.ref.name, e.action])).toEqual([['b', 'deleted']]);
    expect(await names(ns)).toEqual(['a']);
    const state = await manager.storage.read(ns, 'app');
    expect(state?.pending).toBeUndefined();
    expect(recordObjects(state?.record).map((r) => r.name)).toEqual(['a']);
    expect(state?.record.images).toEqual(['busybox:1']);
  });

  it("without a wait, hands back every object's answer, so its status check reads none of them", async () => {
    const ns = await createNamespace(client, 'inst-nowait');
    const objects = [configMap(ns, 'cfg', {}), deployment(ns, 'web')];
    const res = await applyInstance(manager, { ...input(ns, objects), steps: [{ name: 'first', objects: [objects[0]] }, { name: 'second', objects: [objects[1]] }] }, { ...options(), wait: false });
    expect(res.observed.size).toBe(2);
    const fresh = manager.withSignal(new AbortController().signal);
    let reads = 0;
    const get = fresh.client.getOptional.bind(fresh.client);
    fresh.client.getOptional = (a) => (reads++, get(a));
    const health = await fresh.status(res.inventory, res.observed);
    expect(reads).toBe(0);
    // the Deployment's answer is the one its apply got: created, not rolled out
    expect(health.map((h) => [h.subject, h.status])).toEqual([
      [`ConfigMap/${ns}/cfg`, 'Current'],
      [`Deployment/${ns}/web`, 'InProgress'],
    ]);
  });

  it('on a readiness error still prunes, returns the error and leaves the upgrade pending', async () => {
    const ns = await createNamespace(client, 'inst-ready');
    await applyInstance(manager, input(ns, [configMap(ns, 'old', {})]), options());
    const reported: Array<[string, string[]]> = [];
    const onApplied = (step: string, cs: ChangeSet) => void reported.push([step, cs.entries.map((e) => `${e.ref.name}:${e.action}`)]);
    const err = await applyInstance(manager, input(ns, [deployment(ns, 'web')]), { ...options(800), onApplied }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReadinessError);
    expect((err as ReadinessError).pruned.entries.map((e) => [e.ref.name, e.action])).toEqual([['old', 'deleted']]);
    // What the apply changed before the wait failed is not lost.
    expect((err as ReadinessError).applied.entries.map((e) => [e.ref.name, e.action])).toEqual([['web', 'created']]);
    expect(reported).toEqual([['main', ['web:created']]]);
    expect((err as Error).message).toContain(`Deployment/${ns}/web status: 'InProgress'`);
    const state = await manager.storage.read(ns, 'app');
    expect(recordObjects(state?.record).map((r) => r.name)).toEqual(['old']);
    expect(recordObjects(state?.pending).map((r) => `${r.kind}/${r.name}`)).toEqual(['Deployment/web']);
  });

  it('refuses an instance owned by another bundle unless told to take it over', async () => {
    const ns = await createNamespace(client, 'inst-owner');
    await applyInstance(manager, input(ns, [configMap(ns, 'a', {})], 'one'), options());
    await expect(applyInstance(manager, input(ns, [configMap(ns, 'a', {})], 'two'), options())).rejects.toBeInstanceOf(OwnershipConflictError);
    await applyInstance(manager, input(ns, [configMap(ns, 'a', {})], 'two'), { ...options(), overwriteOwnership: true });
    const state = await manager.storage.read(ns, 'app');
    expect(state?.secret.metadata.labels?.['bundle.timoni.sh/name']).toBe('two');
  });

  it('checks the owner labels on the same read: refuses another owner, lets its owner move bundles', async () => {
    const ns = await createNamespace(client, 'inst-proj');
    const owned = (owner: string, bundle: string) => ({ ...input(ns, [configMap(ns, 'a', {})], bundle), labels: { 'bundle.timoni.sh/name': bundle, 'example.com/owner': owner } });
    await applyInstance(manager, owned('p1', 'one'), { ...options(), owner: { 'example.com/owner': 'p1' } });
    // the same owner moves the instance to another bundle without overwriteOwnership
    await applyInstance(manager, owned('p1', 'two'), { ...options(), owner: { 'example.com/owner': 'p1' } });
    const err = await applyInstance(manager, owned('p2', 'two'), { ...options(), owner: { 'example.com/owner': 'p2' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InstanceOwnershipError);
    expect(err).toMatchObject({ instance: `${ns}/app`, owner: { 'example.com/owner': 'p1' } });
    expect((err as Error).message).toBe(`instance ${ns}/app belongs to another owner (example.com/owner=p1), not example.com/owner=p2`);
    expect((await manager.storage.read(ns, 'app'))?.secret.metadata.labels?.['example.com/owner']).toBe('p1');
    await applyInstance(manager, owned('p2', 'two'), { ...options(), owner: { 'example.com/owner': 'p2' }, overwriteOwnership: true });
    expect((await manager.storage.read(ns, 'app'))?.secret.metadata.labels?.['example.com/owner']).toBe('p2');
  });

  it('a step refused part way reports what it applied, and the inventory lists it', async () => {
    const ns = await createNamespace(client, 'inst-partial');
    const role = uniqueName('flotilla-test:inst');
    const reported: Array<[string, string[]]> = [];
    const onApplied = (step: string, cs: ChangeSet) => void reported.push([step, cs.entries.map((e) => `${e.ref.kind}/${e.ref.name}:${e.action}`)]);
    const steps = [
      { name: 'first', objects: [configMap(ns, 'seed', {})] },
      { name: 'second', objects: [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: role }, rules: [] }, configMap(ns, 'Not_Valid', {})] },
    ];
    const err = await applyInstance(manager, { ...input(ns, []), steps }, { ...options(), onApplied }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StagedApplyError);
    expect(reported).toEqual([
      ['first', ['ConfigMap/seed:created']],
      ['second', [`ClusterRole/${role}:created`]],
    ]);
    const state = await manager.storage.read(ns, 'app');
    expect(recordObjects(state?.record).map((r) => `${r.kind}/${r.name}`)).toEqual(expect.arrayContaining([`ClusterRole/${role}`, 'ConfigMap/seed']));
  });
});
