import { getEventListeners } from 'node:events';
import { configMap, createNamespace, deployment, job, testCluster } from '../testdata/cluster';
import { eventually } from '../testdata/eventually';
import { objectRef } from './object-id';
import { ObservedObjects } from './object-observations';
import { WaitFailedError, WaitTimeoutError } from './errors';
import { defaultApplyOptions } from './resources-apply';
import { defaultWaitOptions, waitForTermination, type WaitOptions } from './resources-wait';

const { connection, manager, client } = testCluster();
afterAll(() => connection.close());

const quick = (timeoutMs: number): WaitOptions => ({ ...defaultWaitOptions(), timeoutMs, intervalMs: 200, initialIntervalMs: 50 });

describe('wait (real API server)', () => {
  it('times out with a report naming each object that is not ready', async () => {
    const ns = await createNamespace(client, 'wait-timeout');
    const set = await manager.prepare([configMap(ns, 'cfg', { a: '1' }), deployment(ns, 'web')], { name: 'app', namespace: ns });
    await manager.applyAllStaged(set, defaultApplyOptions());
    // its pod cannot pull its image: once the controller has counted it, the Deployment stays here
    await eventually('the Deployment to count its unavailable replica', async () => (await manager.status(set.map(objectRef)))[1].message === 'Available: 0/1');
    const err = await manager.wait(set, quick(1_000)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    const report = (err as WaitTimeoutError).objects;
    expect(report).toEqual([expect.objectContaining({ subject: `Deployment/${ns}/web`, status: 'InProgress', message: 'Available: 0/1' })]);
    expect((err as Error).message).toContain(`Deployment/${ns}/web status: 'InProgress' (Available: 0/1)`);
  });

  it('stopped by its signal mid-wait, reports the last statuses rather than the aborted request', async () => {
    const ns = await createNamespace(client, 'wait-abort');
    const set = await manager.prepare([configMap(ns, 'cfg', { a: '1' }), deployment(ns, 'web')], { name: 'app', namespace: ns });
    await manager.applyAllStaged(set, defaultApplyOptions());
    const controller = new AbortController();
    // The requests carry the signal too, as under the engine's component deadline.
    const waiting = manager.withSignal(controller.signal).wait(set, { ...quick(20_000), signal: controller.signal }).catch((e: unknown) => e);
    setTimeout(() => controller.abort(new Error('deadline')), 400);
    const err = await waiting;
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect((err as WaitTimeoutError).objects).toEqual([expect.objectContaining({ subject: `Deployment/${ns}/web`, status: 'InProgress' })]);
    expect((err as Error).message).not.toContain('ConfigMap');
  });

  it('leaves no abort listener behind on its signal, however many times it polls', async () => {
    const ns = await createNamespace(client, 'wait-listeners');
    const set = await manager.prepare([deployment(ns, 'web')], { name: 'app', namespace: ns });
    await manager.applyAllStaged(set, defaultApplyOptions());
    const signal = new AbortController().signal;
    let polls = 0;
    const counting = manager.withSignal(signal);
    const get = counting.client.getOptional.bind(counting.client);
    counting.client.getOptional = (a) => (polls++, get(a));
    const err = await counting.wait(set, { ...quick(800), intervalMs: 20, initialIntervalMs: 20, signal }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect(polls).toBeGreaterThan(1);
    // one listener per pause was the MaxListenersExceededWarning of long waits
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('stopped before its first poll, reports every object as not observed', async () => {
    const ns = await createNamespace(client, 'wait-aborted');
    const set = await manager.prepare([configMap(ns, 'cfg', { a: '1' }), deployment(ns, 'web')], { name: 'app', namespace: ns });
    await manager.applyAllStaged(set, defaultApplyOptions());
    const signal = AbortSignal.abort(new Error('deadline'));
    const err = await manager.withSignal(signal).wait(set, { ...quick(20_000), signal }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect((err as WaitTimeoutError).objects.map((o) => [o.subject, o.status])).toEqual([
      [`ConfigMap/${ns}/cfg`, 'Unknown'],
      [`Deployment/${ns}/web`, 'Unknown'],
    ]);
  });

  it('waiting for the termination of nothing is done at once, also past the deadline', async () => {
    const signal = AbortSignal.abort(new Error('deadline'));
    await expect(waitForTermination(client, [], { ...quick(1_000), signal })).resolves.toBeUndefined();
  });

  it("takes its first look from the apply's answers: objects Current at once cost no read", async () => {
    const ns = await createNamespace(client, 'wait-observed');
    const counting = manager.withSignal(new AbortController().signal);
    const get = counting.client.getOptional.bind(counting.client);
    let reads = 0;
    const set = await counting.prepare([configMap(ns, 'a', { a: '1' }), configMap(ns, 'b', { b: '1' })], { name: 'app', namespace: ns });
    for (const round of ['created', 'unchanged']) {
      const observed = new ObservedObjects();
      const changes = await counting.applyAllStaged(set, defaultApplyOptions(), observed);
      expect(changes.entries.map((e) => e.action)).toEqual([round, round]);
      expect(observed.size).toBe(2);
      counting.client.getOptional = (a) => (reads++, get(a));
      const result = await counting.wait(set, { ...quick(5_000), observed });
      counting.client.getOptional = get;
      expect(result.map((h) => h.status)).toEqual(['Current', 'Current']);
      expect(reads).toBe(0);
    }
  });

  it('reads every object from the cluster from its second poll on', async () => {
    const ns = await createNamespace(client, 'wait-observed-later');
    const counting = manager.withSignal(new AbortController().signal);
    const set = await counting.prepare([configMap(ns, 'cfg', { a: '1' }), deployment(ns, 'web')], { name: 'app', namespace: ns });
    const observed = new ObservedObjects();
    await counting.applyAllStaged(set, defaultApplyOptions(), observed);
    const reads = new Map<string, number>();
    const get = counting.client.getOptional.bind(counting.client);
    counting.client.getOptional = (a) => (reads.set(a.kind, (reads.get(a.kind) ?? 0) + 1), get(a));
    // the new Deployment's answer is not rolled out, so the wait polls the cluster until its time is up
    const err = await counting.wait(set, { ...quick(1_000), observed }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect(observed.size).toBe(0);
    expect(reads.get('Deployment')).toBeGreaterThanOrEqual(1);
    expect(reads.get('ConfigMap')).toBe(reads.get('Deployment'));
  });

  it('succeeds once the controllers have rolled the Deployment out', async () => {
    const ns = await createNamespace(client, 'wait-ready');
    const set = await manager.prepare([deployment(ns, 'web', 'nginx:1')], { name: 'app', namespace: ns });
    await manager.applyAllStaged(set, defaultApplyOptions());
    const result = await manager.wait(set, quick(40_000));
    expect(result).toEqual([expect.objectContaining({ subject: `Deployment/${ns}/web`, status: 'Current' })]);
  });

  it('fails fast when an object reports Failed, and skips wait-disabled objects', async () => {
    const ns = await createNamespace(client, 'wait-failed');
    // the Job's pod fails (kwok's failing stage) and, with no retries, its controller marks it Failed
    const broken = job(ns, 'broken', 'busybox:1');
    const spec = broken.spec as { template: { metadata?: object }; backoffLimit?: number };
    spec.backoffLimit = 0;
    spec.template.metadata = { labels: { 'pod-container-running-failed.stage.kwok.x-k8s.io': 'true' } };
    const set = await manager.prepare(
      [broken, { ...deployment(ns, 'ignored'), metadata: { name: 'ignored', namespace: ns, annotations: { 'action.timoni.sh/wait': 'disabled' } } }],
      { name: 'app', namespace: ns },
    );
    await manager.applyAllStaged(set, defaultApplyOptions());
    // fails fast: a WaitFailedError, not the WaitTimeoutError the 20 s limit would give
    const err = await manager.wait(set, quick(20_000)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitFailedError);
    expect((err as WaitFailedError).objects.map((o) => o.subject)).toEqual([`Job/${ns}/broken`]);
  });
});
