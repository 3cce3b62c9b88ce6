// Plans and applies `project bootstrap` on a standalone cluster: what exists
// is read first, so the plan says what will be created and what updated;
// the agent is installed only when its CRD or Deployment is missing.
import { KubeApiError, targetOf, UnknownKindError, waitForServedKinds, waitForSet, type KubeObject, type ObjectClient } from '@flotilla/kube';
import { isDeepStrictEqual } from 'node:util';
import { CliError, messageOf } from '../errors';
import { PROJECT_API_VERSION } from './bootstrap-plan';

const FIELD_MANAGER = 'flotilla';
const CRD_WAIT = { intervalMs: 500, initialIntervalMs: 100, timeoutMs: 60_000, failFast: true };

export interface PlannedObject {
  object: KubeObject;
  action: 'create' | 'update' | 'unchanged';
  /** part of the agent's install */
  agent: boolean;
}

export const subjectOf = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

export async function agentMissing(client: ObjectClient): Promise<boolean> {
  const crd = await client.getOptional({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: 'projects.projects.timoni.sh' });
  const deployment = await client.getOptional({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'flotilla-system', name: 'flotilla-agent' });
  return !crd || !deployment;
}

export async function planBootstrap(client: ObjectClient, tenant: KubeObject[], agent: KubeObject[]): Promise<PlannedObject[]> {
  const crdInstalled = !agent.some((o) => o.kind === 'CustomResourceDefinition');
  const plan: PlannedObject[] = [];
  for (const object of agent) plan.push({ object, action: (await exists(client, object)) ? 'update' : 'create', agent: true });
  for (const object of tenant) {
    const isProject = object.apiVersion === PROJECT_API_VERSION;
    // without the CRD there can be no Project yet (and discovery does not know the kind)
    const live = isProject && !crdInstalled ? undefined : await read(client, object);
    if (isProject && live && !isDeepStrictEqual(withDefaults(live.spec), withDefaults(object.spec))) {
      throw new CliError(`project "${object.metadata.name}" already exists in ${object.metadata.namespace} with another spec`, 'a Project\'s spec cannot change: delete it first (`flotilla project delete … --kube-context …`) or pick another name');
    }
    plan.push({ object, action: !live ? 'create' : isProject ? 'unchanged' : 'update', agent: false });
  }
  return plan;
}

/** Agent first (and its CRD served), then the tenant's objects in order, the Project last. */
export async function applyBootstrap(client: ObjectClient, plan: PlannedObject[], onApplied: (p: PlannedObject) => void): Promise<void> {
  const agent = plan.filter((p) => p.agent);
  for (const p of agent) onApplied(await applyOne(client, p));
  const crds = agent.map((p) => p.object).filter((o) => o.kind === 'CustomResourceDefinition');
  if (crds.length) {
    await waitForSet(client, crds.map(targetOf), CRD_WAIT);
    await waitForServedKinds(client, crds, CRD_WAIT);
  }
  for (const p of plan.filter((x) => !x.agent && x.action !== 'unchanged')) onApplied(await applyOne(client, p));
}

async function applyOne(client: ObjectClient, p: PlannedObject): Promise<PlannedObject> {
  try {
    await client.apply(p.object, { dryRun: false, force: true, fieldManager: FIELD_MANAGER });
    return p;
  } catch (err) {
    throw new CliError(`applying ${subjectOf(p.object)} failed: ${messageOf(err)}`, 'the objects listed before it were applied; fix the cause and run bootstrap again (it is idempotent)');
  }
}

async function exists(client: ObjectClient, o: KubeObject): Promise<boolean> {
  return (await read(client, o)) !== undefined;
}

async function read(client: ObjectClient, o: KubeObject): Promise<KubeObject | undefined> {
  try {
    return await client.getOptional({ apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name });
  } catch (err) {
    if (err instanceof UnknownKindError) return undefined;
    if (err instanceof KubeApiError && err.statusCode === 403) throw new CliError(`not allowed to read ${subjectOf(o)}: ${messageOf(err)}`, 'bootstrap needs a cluster admin context');
    throw err;
  }
}

function withDefaults(spec: unknown): unknown {
  const s = (spec ?? {}) as { serviceAccountName?: string; source?: { repository?: string; tag?: string; path?: string } };
  return { serviceAccountName: s.serviceAccountName, source: { repository: s.source?.repository, tag: s.source?.tag ?? 'latest', path: s.source?.path ?? 'project.cue' } };
}
