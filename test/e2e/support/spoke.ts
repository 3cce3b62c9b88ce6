import { randomBytes } from 'node:crypto';
import { ClusterConnection, ObjectClient, type KubeObject } from '@flotilla/kube';
import { harnessEnv } from '../../harness/env';
import { serviceAccountSubject, waitUntilAllowed } from '../../harness/kube-rbac';
import type { HubFleet } from './hub-fleet';

// The harness API server as the suites' spoke cluster, driven with the admin identity.

export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`;
}

export function adminClient(): ObjectClient {
  const kube = harnessEnv().kube;
  return new ObjectClient(ClusterConnection.create({ server: kube.server, caData: kube.caData, token: kube.admin.token }));
}

const apply = (client: ObjectClient, obj: KubeObject) => client.apply(obj, { dryRun: false, force: true, fieldManager: 'flotilla-e2e' });

/**
 * What a platform team prepares before a Project may apply: the Project's
 * namespace and service account, and in every namespace its instances use a
 * Role with just what the webapp module and the engine need, bound to that
 * service account. Nothing cluster-wide.
 */
export async function prepareTenant(client: ObjectClient, opts: { namespace: string; serviceAccount: string; instanceNamespaces: string[] }): Promise<void> {
  const namespaces = [...new Set([opts.namespace, ...opts.instanceNamespaces])];
  for (const ns of namespaces) await apply(client, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { 'e2e.flotilla.dev/suite': 'true' } } });
  await apply(client, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: opts.serviceAccount, namespace: opts.namespace } });
  for (const ns of namespaces) {
    await apply(client, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'flotilla-deployer', namespace: ns },
      rules: [
        // the namespace itself: read when the inventory is written
        { apiGroups: [''], resources: ['namespaces'], resourceNames: [ns], verbs: ['get'] },
        // the module's objects and the inventory Secrets
        { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
        { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
        // image pull secrets of the service account, when the Project has no registry credentials
        { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['get'] },
        { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
      ],
    });
    await apply(client, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'flotilla-deployer', namespace: ns },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'flotilla-deployer' },
      subjects: [{ kind: 'ServiceAccount', name: opts.serviceAccount, namespace: opts.namespace }],
    });
  }
  const subject = serviceAccountSubject(opts.namespace, opts.serviceAccount);
  for (const ns of namespaces) await waitUntilAllowed(harnessEnv().kube, { ...subject, namespace: ns, verb: 'create', resource: 'configmaps' });
}

export async function deleteNamespaces(client: ObjectClient, namespaces: string[]): Promise<void> {
  await Promise.all(namespaces.map((name) => client.delete({ apiVersion: 'v1', kind: 'Namespace', name }).catch(() => undefined)));
}

/** Registers the harness API server as a push cluster (admin token, pinned CA). */
export async function registerSpoke(fleet: HubFleet, name: string, group: string): Promise<void> {
  const kube = harnessEnv().kube;
  await fleet.expectCall(201, 'POST', '/api/v1/clusters', {
    name,
    group,
    mode: 'push',
    endpoint: { server: kube.server, caData: kube.caData },
    credentials: { token: kube.admin.token },
  });
}

/** name → object, without the API server's own objects (kube-root-ca.crt, default service account token). */
export async function objectsIn(client: ObjectClient, apiVersion: string, kind: string, namespace: string): Promise<Map<string, KubeObject>> {
  const list = await client.list(apiVersion, kind, { namespace });
  return new Map(list.filter((o) => o.metadata.name !== 'kube-root-ca.crt').map((o) => [o.metadata.name, o]));
}

/** The readiness gate the e2e webapp module's pods carry; kwok keeps them not Ready until it is True. */
export const RELEASE_GATE = 'flotilla.test/released';

/**
 * Releases the pods of every Deployment in `namespaces` `delayMs` after the
 * Deployment was first seen at its generation: it sets their readiness gate
 * (RELEASE_GATE) True, as a load balancer controller would, and then kwok
 * makes them Ready and the controllers make the Deployment available. Until
 * then the rollout really waits, so a suite controls when a Deployment becomes
 * ready without writing its status by hand.
 */
export class DeploymentReadiness {
  private readonly seen = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** names (namespace/name@generation) released so far, in order */
  readonly marked: string[] = [];
  /** released pods not yet Ready: since when they are seen so (or last nudged) */
  private readonly released = new Map<string, number>();

  constructor(
    private readonly client: ObjectClient,
    private readonly namespaces: () => string[],
    /** may be changed while it runs */
    public delayMs: number,
  ) {}

  start(): this {
    const loop = async () => {
      if (this.stopped) return;
      await this.pass().catch(() => undefined);
      if (!this.stopped) this.timer = setTimeout(() => void loop(), 200);
    };
    void loop();
    return this;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private async pass(): Promise<void> {
    for (const ns of this.namespaces()) {
      for (const d of await this.client.list('apps/v1', 'Deployment', { namespace: ns })) {
        const key = `${ns}/${d.metadata.name}@${d.metadata.generation ?? 0}`;
        const first = this.seen.get(key) ?? Date.now();
        this.seen.set(key, first);
        if (Date.now() - first < this.delayMs) continue;
        const labels = ((d.spec ?? {}) as { selector?: { matchLabels?: Record<string, string> } }).selector?.matchLabels ?? {};
        const selector = Object.entries(labels).map(([k, v]) => `${k}=${v}`).join(',');
        // every pod not yet released, also those a later rollout creates
        for (const pod of await this.client.list('v1', 'Pod', { namespace: ns, labelSelector: selector })) {
          const status = (pod.status ?? {}) as { phase?: string; conditions?: { type: string; status?: string }[] };
          const conditions = status.conditions ?? [];
          if (pod.metadata.deletionTimestamp) continue;
          const gate = conditions.findIndex((c) => c.type === RELEASE_GATE);
          if (gate >= 0) {
            // a conflict (the pod changed since it was read) is retried at the next pass
            await this.nudge(ns, pod.metadata.name, status.phase, conditions, gate).catch(() => undefined);
            continue;
          }
          const condition = { type: RELEASE_GATE, status: 'True', reason: 'ReleasedByTest', message: 'released by the e2e suite', lastTransitionTime: new Date().toISOString() };
          await this.client.patch(
            { apiVersion: 'v1', kind: 'Pod', namespace: ns, name: pod.metadata.name },
            // append to the conditions kwok wrote, or start the list
            [conditions.length ? { op: 'add', path: '/status/conditions/-', value: condition } : { op: 'add', path: '/status/conditions', value: [condition] }],
            'json',
            { subresource: 'status' },
          );
        }
        if (!this.marked.includes(key)) this.marked.push(key);
      }
    }
  }

  /**
   * kwok can miss the update that released a running pod (it was busy with
   * the pod's previous stage) and leave it not Ready for good; writing the
   * gate again did not always wake it. A pod released a while ago, running
   * and still not Ready, is marked Ready here, as kwok's
   * pod-readiness-gates-met stage would have.
   */
  private async nudge(ns: string, name: string, phase: string | undefined, conditions: { type: string; status?: string }[], gate: number): Promise<void> {
    const key = `${ns}/${name}`;
    const ready = conditions.findIndex((c) => c.type === 'Ready');
    if (phase !== 'Running' || ready < 0 || conditions[ready].status === 'True' || conditions[gate].status !== 'True') return void this.released.delete(key);
    const since = this.released.get(key);
    if (since === undefined) return void this.released.set(key, Date.now());
    if (Date.now() - since < NUDGE_AFTER_MS) return;
    this.released.set(key, Date.now());
    const condition = { type: 'Ready', status: 'True', reason: 'ReleasedByTest', message: 'made Ready by the e2e suite: kwok missed its gate', lastTransitionTime: new Date().toISOString() };
    await this.client.patch(
      { apiVersion: 'v1', kind: 'Pod', namespace: ns, name },
      // only if the condition is still where it was read
      [{ op: 'test', path: `/status/conditions/${ready}/type`, value: 'Ready' }, { op: 'replace', path: `/status/conditions/${ready}`, value: condition }],
      'json',
      { subresource: 'status' },
    );
  }
}

/** How long a released, running pod may stay not Ready before the suite marks it Ready. */
const NUDGE_AFTER_MS = 3000;

/**
 * What a failed wait for health should print: each Deployment's and Pod's
 * state in `namespace`, and each node's readiness and taints (a node the
 * lifecycle controller found silent is tainted, and its pods stop being Ready),
 * one per line. Never throws: a failure to list is itself the line to print.
 */
export async function describeWorkloads(client: ObjectClient, namespace: string): Promise<string[]> {
  return listWorkloads(client, namespace).catch((e: Error) => [`(not listed: ${e.message})`]);
}

async function listWorkloads(client: ObjectClient, namespace: string): Promise<string[]> {
  const lines: string[] = [];
  const brief = (conditions: unknown) => ((conditions ?? []) as { type: string; status: string; reason?: string }[]).map((c) => `${c.type}=${c.status}${c.reason ? `(${c.reason})` : ''}`).join(' ');
  for (const d of await client.list('apps/v1', 'Deployment', { namespace })) {
    const s = (d.status ?? {}) as { replicas?: number; readyReplicas?: number; availableReplicas?: number; conditions?: unknown };
    lines.push(`Deployment ${d.metadata.name} gen ${d.metadata.generation}: replicas ${s.replicas ?? 0}, ready ${s.readyReplicas ?? 0}, available ${s.availableReplicas ?? 0}; ${brief(s.conditions)}`);
  }
  for (const p of await client.list('v1', 'Pod', { namespace })) {
    const s = (p.status ?? {}) as { phase?: string; conditions?: unknown };
    const node = ((p.spec ?? {}) as { nodeName?: string }).nodeName ?? '(unscheduled)';
    lines.push(`Pod ${p.metadata.name} on ${node}${p.metadata.deletionTimestamp ? ' (deleting)' : ''}: ${s.phase}; ${brief(s.conditions)}`);
  }
  for (const n of await client.list('v1', 'Node', {})) {
    const taints = (((n.spec ?? {}) as { taints?: { key: string; effect: string }[] }).taints ?? []).map((t) => `${t.key}:${t.effect}`);
    const ready = (((n.status ?? {}) as { conditions?: { type: string; status: string; lastHeartbeatTime?: string }[] }).conditions ?? []).find((c) => c.type === 'Ready');
    lines.push(`Node ${n.metadata.name}: Ready=${ready?.status} (heartbeat ${ready?.lastHeartbeatTime}); taints ${taints.join(', ') || 'none'}`);
  }
  return lines;
}
