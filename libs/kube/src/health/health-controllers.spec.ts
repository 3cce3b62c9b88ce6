// The health rules and wait, judged against what real controllers do: the
// harness cluster runs kube-controller-manager, kube-scheduler and kwok
// (fake nodes; test/kube-apiserver/kwok/stages.yaml). Nothing here writes a
// workload's status by hand; only the custom resource, which no controller
// owns, gets its condition from the test.
import { createNamespace, deployment, job, testCluster, uniqueName, UNPULLABLE_IMAGE as UNPULLABLE } from '../../testdata/cluster';
import { eventually } from '../../testdata/eventually';
import { WaitFailedError, WaitTimeoutError } from '../errors';
import { defaultApplyOptions } from '../resources-apply';
import { checkHealth, defaultWaitOptions, targetOf, type WaitOptions } from '../resources-wait';
import type { KubeObject } from '../types';

const { connection, manager, client } = testCluster();
afterAll(() => connection.close());

// Rollouts on fake nodes take a few seconds; the bound only limits a failing spec.
const waitUpTo = (timeoutMs: number): WaitOptions => ({ ...defaultWaitOptions(), timeoutMs, intervalMs: 500, initialIntervalMs: 100 });

async function apply(ns: string, objects: KubeObject[]): Promise<KubeObject[]> {
  const set = await manager.prepare(objects, { name: 'app', namespace: ns });
  await manager.applyAllStaged(set, defaultApplyOptions());
  return set;
}

async function healthOf(obj: KubeObject) {
  const [h] = await checkHealth(client, [targetOf(obj)]);
  return h;
}

async function pods(ns: string, selector: string): Promise<KubeObject[]> {
  return client.list('v1', 'Pod', { namespace: ns, labelSelector: selector });
}

type PodStatus = {
  phase?: string;
  conditions?: { type: string; status: string; lastTransitionTime?: string }[];
  containerStatuses?: { state?: { waiting?: { reason?: string } } }[];
};
const podStatus = (p: KubeObject) => (p as KubeObject & { status?: PodStatus }).status ?? {};
const waitingReason = (p: KubeObject) => podStatus(p).containerStatuses?.[0]?.state?.waiting?.reason;

function statefulSet(ns: string, name: string, replicas: number, image = 'nginx:1'): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: ns },
    spec: {
      replicas,
      serviceName: name,
      podManagementPolicy: 'OrderedReady',
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image }] } },
    },
  };
}

function daemonSet(ns: string, name: string): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: ns },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: 'nginx:1' }] } },
    },
  };
}

describe('health and wait on a cluster with controllers and kwok nodes', () => {
  it('a Deployment rolls out and becomes Available: Current, and wait returns', async () => {
    const ns = await createNamespace(client, 'ctl-deploy');
    const web = deployment(ns, 'web', 'nginx:1');
    (web.spec as { replicas: number }).replicas = 2;
    const set = await apply(ns, [web]);
    const report = await manager.wait(set, waitUpTo(50_000));
    expect(report).toEqual([expect.objectContaining({ subject: `Deployment/${ns}/web`, status: 'Current', message: 'Deployment is available. Replicas: 2' })]);
    // what the controllers did: two Running, Ready pods on the fake nodes
    const running = await pods(ns, 'app=web');
    expect(running).toHaveLength(2);
    for (const p of running) {
      expect(podStatus(p).phase).toBe('Running');
      expect((p.spec as { nodeName?: string }).nodeName).toMatch(/^kwok-node-/);
    }
  });

  it('a Deployment whose image cannot be pulled stays unavailable: InProgress with a reason, and wait times out naming it', async () => {
    const ns = await createNamespace(client, 'ctl-pull');
    const set = await apply(ns, [deployment(ns, 'web', UNPULLABLE)]);
    // the positive signal: the pod reports the pull failure, as a kubelet would
    await eventually('the pod to report ErrImagePull', async () => (await pods(ns, 'app=web')).some((p) => waitingReason(p) === 'ErrImagePull'));
    const h = await eventually('the Deployment to count its replica', async () => {
      const r = await healthOf(set[0]);
      return r.message === 'Available: 0/1' && r;
    });
    expect(h).toMatchObject({ status: 'InProgress', message: 'Available: 0/1' });
    const err = await manager.wait(set, waitUpTo(2_000)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect((err as Error).message).toContain(`Deployment/${ns}/web status: 'InProgress' (Available: 0/1)`);
  });

  it('a Deployment past its progress deadline is Failed, and wait fails fast naming it', async () => {
    const ns = await createNamespace(client, 'ctl-deadline');
    const web = deployment(ns, 'web', UNPULLABLE);
    (web.spec as { progressDeadlineSeconds: number }).progressDeadlineSeconds = 1;
    const set = await apply(ns, [web]);
    const err = await manager.wait(set, waitUpTo(50_000)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitFailedError);
    expect((err as WaitFailedError).objects).toEqual([
      expect.objectContaining({ subject: `Deployment/${ns}/web`, status: 'Failed', message: 'Progress deadline exceeded' }),
    ]);
  });

  it('a Job that completes is Current', async () => {
    const ns = await createNamespace(client, 'ctl-job');
    const set = await apply(ns, [job(ns, 'migrate', 'busybox:1')]);
    const report = await manager.wait(set, waitUpTo(50_000));
    expect(report).toEqual([expect.objectContaining({ subject: `Job/${ns}/migrate`, status: 'Current', message: 'Job completed' })]);
    const [pod] = await pods(ns, 'job-name=migrate');
    expect(podStatus(pod).phase).toBe('Succeeded');
  });

  it('a Job whose pod fails is Failed, and wait fails naming it', async () => {
    const ns = await createNamespace(client, 'ctl-job-fail');
    const failing = job(ns, 'migrate', 'busybox:1');
    const spec = failing.spec as { template: { metadata?: object }; backoffLimit?: number };
    spec.backoffLimit = 0;
    // kwok's chaos label: the stage fails the container with exit code 1
    spec.template.metadata = { labels: { 'pod-container-running-failed.stage.kwok.x-k8s.io': 'true' } };
    const set = await apply(ns, [failing]);
    const err = await manager.wait(set, waitUpTo(50_000)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitFailedError);
    expect((err as WaitFailedError).objects).toEqual([
      expect.objectContaining({ subject: `Job/${ns}/migrate`, status: 'Failed', message: expect.stringMatching(/^Job failed: .*backoff limit/i) }),
    ]);
    const [pod] = await pods(ns, 'job-name=migrate');
    expect(podStatus(pod).phase).toBe('Failed');
  });

  it('a StatefulSet starts its pods in order and is Current once all are ready', async () => {
    const ns = await createNamespace(client, 'ctl-sts');
    const set = await apply(ns, [statefulSet(ns, 'db', 3)]);
    const report = await manager.wait(set, waitUpTo(50_000));
    expect(report).toEqual([expect.objectContaining({ subject: `StatefulSet/${ns}/db`, status: 'Current' })]);
    // OrderedReady: each pod was created only once the one before it was Ready
    const byName = new Map((await pods(ns, 'app=db')).map((p) => [p.metadata.name, p]));
    for (const i of [1, 2]) {
      const before = byName.get(`db-${i - 1}`)!;
      const readyAt = podStatus(before).conditions?.find((c) => c.type === 'Ready' && c.status === 'True')?.lastTransitionTime;
      expect(readyAt).toBeDefined();
      expect(Date.parse(byName.get(`db-${i}`)!.metadata.creationTimestamp!)).toBeGreaterThanOrEqual(Date.parse(readyAt!));
    }
  });

  it('a StatefulSet whose first pod cannot start stops there: InProgress with one replica of two', async () => {
    const ns = await createNamespace(client, 'ctl-sts-stuck');
    const set = await apply(ns, [statefulSet(ns, 'db', 2, UNPULLABLE)]);
    await eventually('db-0 to report ErrImagePull', async () => (await pods(ns, 'app=db')).some((p) => waitingReason(p) === 'ErrImagePull'));
    const h = await eventually('the StatefulSet to count db-0', async () => {
      const r = await healthOf(set[0]);
      return r.message === 'Replicas: 1/2' && r;
    });
    expect(h.status).toBe('InProgress');
    expect((await pods(ns, 'app=db')).map((p) => p.metadata.name)).toEqual(['db-0']);
  });

  it('a DaemonSet runs one pod on each fake node and is Current', async () => {
    const ns = await createNamespace(client, 'ctl-ds');
    const set = await apply(ns, [daemonSet(ns, 'agent')]);
    const report = await manager.wait(set, waitUpTo(50_000));
    expect(report).toEqual([expect.objectContaining({ subject: `DaemonSet/${ns}/agent`, status: 'Current' })]);
    const nodes = (await client.list('v1', 'Node')).map((n) => n.metadata.name).filter((n) => n.startsWith('kwok-node-'));
    expect(nodes.length).toBeGreaterThan(0);
    const placed = (await pods(ns, 'app=agent')).map((p) => (p.spec as { nodeName: string }).nodeName).sort();
    expect(placed).toEqual(nodes.sort());
  });

  it('a custom resource follows its Ready condition, which the test sets (no controller owns it)', async () => {
    const group = `${uniqueName('h')}.flotilla.test`;
    const crd: KubeObject = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `widgets.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    };
    await client.apply(crd);
    await manager.wait([crd], waitUpTo(30_000));
    const ns = await createNamespace(client, 'ctl-cr');
    const widget: KubeObject = { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w', namespace: ns } };
    const address = { apiVersion: widget.apiVersion, kind: 'Widget', namespace: ns, name: 'w' };
    await eventually('the Widget kind to be served', async () => client.apply(widget).then(() => true, () => false));
    const setReady = (status: 'True' | 'False', reason: string) =>
      client.patch(
        address,
        { status: { conditions: [{ type: 'Ready', status, reason, message: `widget ${reason}`, lastTransitionTime: new Date().toISOString() }] } },
        'merge',
        { subresource: 'status' },
      );

    expect(await healthOf(widget)).toMatchObject({ status: 'Current', message: 'Resource is current' });
    await setReady('False', 'Provisioning');
    expect(await healthOf(widget)).toMatchObject({ status: 'InProgress', message: 'widget Provisioning' });
    const err = await manager.wait([widget], waitUpTo(1_000)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect((err as Error).message).toContain(`Widget/${ns}/w status: 'InProgress' (widget Provisioning)`);
    await setReady('True', 'Provisioned');
    expect(await manager.wait([widget], waitUpTo(10_000))).toEqual([expect.objectContaining({ status: 'Current', message: 'widget Provisioned' })]);
    await client.delete({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: crd.metadata.name });
  });
});
