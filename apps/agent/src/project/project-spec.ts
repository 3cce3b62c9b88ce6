// A Project resource as the engine's ProjectSpec, with the defaults the RFC
// gives, plus the agent's own annotations read and checked. The API server
// already validates the schema; this catches what the schema cannot (and a
// resource written before the CRD had a rule).
import type { ProjectSpec, TenantPolicy } from '@flotilla/engine';
import {
  DEFAULT_PATH,
  DEFAULT_TAG,
  DELETION_POLICY_ANNOTATION,
  HUB_DIGEST_ANNOTATION,
  HUB_TENANT_POLICY_ANNOTATION,
  RECONCILE_REQUESTED_ANNOTATION,
  RUNTIME_ANNOTATION_PREFIX,
  SUSPEND_ANNOTATION,
  type ProjectResource,
} from './project-resource';

export type DeletionPolicy = 'Delete' | 'Orphan';

export interface ProjectIntent {
  spec: ProjectSpec;
  suspended: boolean;
  deletionPolicy: DeletionPolicy;
  /** the value of the reconcile request annotation, if any */
  requestedAt?: string;
  /** a hub chose the digest: apply exactly it, never poll the tag */
  pinnedDigest?: string;
}

export type ProjectIntentResult = { ok: true; intent: ProjectIntent } | { ok: false; problems: string[] };

export function projectIntent(obj: ProjectResource): ProjectIntentResult {
  const problems: string[] = [];
  const annotations = obj.metadata.annotations ?? {};
  const repository = obj.spec?.source?.repository ?? '';
  if (!repository.startsWith('oci://')) problems.push(`spec.source.repository "${repository}" must start with oci://`);
  const suspend = annotations[SUSPEND_ANNOTATION];
  if (suspend !== undefined && suspend !== 'true' && suspend !== 'false') problems.push(`annotation ${SUSPEND_ANNOTATION}="${suspend}" must be "true" or "false"`);
  const policy = annotations[DELETION_POLICY_ANNOTATION] ?? 'Delete';
  if (policy !== 'Delete' && policy !== 'Orphan') problems.push(`annotation ${DELETION_POLICY_ANNOTATION}="${policy}" must be "Delete" or "Orphan"`);
  const pinned = annotations[HUB_DIGEST_ANNOTATION];
  if (pinned !== undefined && !/^sha256:[a-f0-9]{64}$/.test(pinned)) problems.push(`annotation ${HUB_DIGEST_ANNOTATION}="${pinned}" must be sha256:<64 hex>`);
  const tenantPolicy = annotations[HUB_TENANT_POLICY_ANNOTATION];
  if (tenantPolicy !== undefined && policyOf(tenantPolicy) === undefined) problems.push(`annotation ${HUB_TENANT_POLICY_ANNOTATION} must be JSON {"tenant": string, "namespaces": [string], "serviceAccounts": [string]}`);
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    intent: {
      spec: projectSpecOf(obj),
      suspended: suspend === 'true',
      deletionPolicy: policy as DeletionPolicy,
      ...(annotations[RECONCILE_REQUESTED_ANNOTATION] !== undefined ? { requestedAt: annotations[RECONCILE_REQUESTED_ANNOTATION] } : {}),
      ...(pinned !== undefined ? { pinnedDigest: pinned } : {}),
    },
  };
}

/** The engine's ProjectSpec with the RFC's defaults; also what deletion uses when the annotations no longer parse. */
export function projectSpecOf(obj: ProjectResource): ProjectSpec {
  const source = obj.spec?.source;
  const annotations = obj.metadata.annotations ?? {};
  return {
    name: obj.metadata.name,
    namespace: obj.metadata.namespace ?? '',
    source: { repository: source?.repository ?? '', tag: source?.tag || DEFAULT_TAG, path: source?.path || DEFAULT_PATH },
    serviceAccountName: obj.spec?.serviceAccountName || obj.metadata.name,
    annotations: Object.fromEntries(Object.entries(annotations).filter(([k]) => k.startsWith(RUNTIME_ANNOTATION_PREFIX))),
    ...(annotations[HUB_TENANT_POLICY_ANNOTATION] !== undefined ? { policy: policyOf(annotations[HUB_TENANT_POLICY_ANNOTATION]) ?? NOTHING_ALLOWED } : {}),
  };
}

/** What an unreadable policy allows: nothing, rather than everything. */
const NOTHING_ALLOWED: TenantPolicy = { tenant: '(unreadable policy)', namespaces: [], serviceAccounts: [] };

function policyOf(text: string): TenantPolicy | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  const o = v as Partial<TenantPolicy> | null;
  const strings = (x: unknown): x is string[] => Array.isArray(x) && x.every((s) => typeof s === 'string');
  if (!o || typeof o.tenant !== 'string' || !strings(o.namespaces) || !strings(o.serviceAccounts)) return undefined;
  return { tenant: o.tenant, namespaces: o.namespaces, serviceAccounts: o.serviceAccounts };
}
