import type { ReportComponent, ReportError, ReportInstance } from '@flotilla/engine';
import type { ObjectClient } from '@flotilla/kube';
import { eventually } from './eventually';
import type { HubFleet } from './hub-fleet';

// Reading the `shop` Project's state back: through the REST API, and from the cluster.

export interface TargetView {
  cluster: string;
  clusterGroup: string;
  phase: string;
  conditions: Array<{ type: string; status: string; reason: string; message: string }>;
  observedGeneration: number | null;
  lastAppliedRevision: string | null;
  components: ReportComponent[];
  nextRunAt: string;
  attempt: number;
}

export interface RunView {
  id: string;
  revision: string | null;
  trigger: string;
  result: string;
  startedAt: string;
  finishedAt: string | null;
  durationMs: number | null;
  leaseOwner: string | null;
  instances: ReportInstance[];
  error: string | null;
  errors: ReportError[];
}

export async function target(fleet: HubFleet, project: string, cluster: string): Promise<TargetView> {
  return (await fleet.expectCall(200, 'GET', `/api/v1/projects/${project}/targets/${cluster}`)).body as TargetView;
}

/** One line for a failed wait: the Target's phase, revision, schedule and conditions (a CI log keeps short lines whole). */
export function describeTarget(t: TargetView): string {
  const conditions = t.conditions.map((c) => `${c.type}=${c.status}(${c.reason}: ${c.message})`).join('; ');
  return `${t.cluster}: ${t.phase} on ${t.lastAppliedRevision ?? '(none)'}, attempt ${t.attempt}, next run ${t.nextRunAt}; ${conditions}`;
}

/** Every Run row of a Target, newest first. */
export async function runs(fleet: HubFleet, project: string, cluster: string): Promise<RunView[]> {
  return ((await fleet.expectCall(200, 'GET', `/api/v1/projects/${project}/targets/${cluster}/runs?limit=100`)).body as { items: RunView[] }).items;
}

/** Waits until the Target is Ready on `revision`. */
export function readyOn(fleet: HubFleet, project: string, cluster: string, revision: string, timeoutMs = 45_000): Promise<TargetView> {
  return eventually(
    `Target ${project}/${cluster} to be Ready on ${revision}`,
    async () => {
      const t = await target(fleet, project, cluster);
      return t.phase === 'Ready' && t.lastAppliedRevision === revision ? t : undefined;
    },
    { timeoutMs, observe: async () => ({ target: await target(fleet, project, cluster), lastRuns: (await runs(fleet, project, cluster)).slice(0, 3) }) },
  );
}

/** name → data of the ConfigMaps in `namespace` (the API server's own kube-root-ca.crt left out). */
export async function configMapData(client: ObjectClient, namespace: string): Promise<Record<string, Record<string, string>>> {
  const list = await client.list('v1', 'ConfigMap', { namespace });
  return Object.fromEntries(list.filter((c) => c.metadata.name !== 'kube-root-ca.crt').map((c) => [c.metadata.name, (c.data ?? {}) as Record<string, string>]));
}

export async function deploymentNames(client: ObjectClient, namespace: string): Promise<string[]> {
  return (await client.list('apps/v1', 'Deployment', { namespace })).map((d) => d.metadata.name).sort();
}

/** The `timoni_instance_info` samples of a /metrics text, as label maps. */
export function instanceInfo(metrics: string): Array<{ labels: Record<string, string>; value: number }> {
  return metrics
    .split('\n')
    .filter((l) => l.startsWith('timoni_instance_info{'))
    .map((l) => {
      const m = /^timoni_instance_info\{(.*)\} (\S+)$/.exec(l);
      const labels: Record<string, string> = {};
      for (const [, k, v] of (m?.[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k] = v;
      return { labels, value: Number(m?.[2]) };
    });
}

/**
 * Registers a Project through the REST API with the suites' defaults: the
 * `deployer` service account, the `latest` tag, targeting `spoke-1`. `extra`
 * adds or overrides fields of the request body.
 */
export async function createProject(fleet: HubFleet, project: { name: string; namespace: string; repository: string }, extra: Record<string, unknown> = {}): Promise<void> {
  await fleet.expectCall(201, 'POST', '/api/v1/projects', {
    name: project.name,
    namespace: project.namespace,
    serviceAccountName: 'deployer',
    source: { repository: project.repository, tag: 'latest' },
    targets: { names: ['spoke-1'] },
    ...extra,
  });
}
