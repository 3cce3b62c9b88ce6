// The RFC's Project bootstrap for clusters the caller reaches with their own
// credentials (the hub's push clusters): the Project's namespace, service
// account, image pull secret and role binding (`admin` in the namespace, or
// `cluster-admin`), applied before a run and removed with the Project.
// Objects that exist without this Project's bootstrap labels were made by
// someone else: they are used, never taken over, and never deleted.
import type { KubeObject, ObjectClient } from '@flotilla/kube';
import { BootstrapError, messageOf } from './errors';
import { PROJECT_NAME_LABEL, PROJECT_NAMESPACE_LABEL } from './labels';
import type { ProjectRegistryCredentials, ProjectSpec } from './types';

export const BOOTSTRAP_ROLES = ['admin', 'cluster-admin'] as const;
export type BootstrapRole = (typeof BOOTSTRAP_ROLES)[number];

/** Field manager of bootstrap applies, so they never fight the instances' `timoni` manager. */
export const BOOTSTRAP_FIELD_MANAGER = 'flotilla-bootstrap';
const MANAGED_BY = 'app.kubernetes.io/managed-by';

export interface BootstrapInput {
  project: ProjectSpec;
  role: BootstrapRole;
  /** the Project's registry credentials, stored in the cluster as the service account's image pull secret */
  registryCredentials?: ProjectRegistryCredentials;
}

/** What bootstrap makes, in the order it is applied (deleted in reverse). */
export function bootstrapObjects(input: BootstrapInput): KubeObject[] {
  const { project, role } = input;
  const ns = project.namespace;
  const sa = project.serviceAccountName;
  const labels = { [MANAGED_BY]: BOOTSTRAP_FIELD_MANAGER, [PROJECT_NAME_LABEL]: project.name, [PROJECT_NAMESPACE_LABEL]: ns };
  const pullSecret = `${sa}-registry`;
  const dockerConfig = input.registryCredentials ? dockerConfigJson(registryHost(project.source.repository), input.registryCredentials) : undefined;
  const subject = { kind: 'ServiceAccount', name: sa, namespace: ns };
  const binding: KubeObject =
    role === 'cluster-admin'
      ? {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: `flotilla:${ns}:${project.name}`, labels },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
          subjects: [subject],
        }
      : {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: `flotilla:${project.name}`, namespace: ns, labels },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
          subjects: [subject],
        };
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels } },
    ...(dockerConfig
      ? [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: pullSecret, namespace: ns, labels }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': Buffer.from(dockerConfig).toString('base64') } }]
      : []),
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa, namespace: ns, labels }, ...(dockerConfig ? { imagePullSecrets: [{ name: pullSecret }] } : {}) },
    binding,
  ];
}

/** Applies what bootstrap makes, leaving alone objects someone else made; returns `Kind/namespace/name` of those applied. */
export async function applyBootstrap(client: ObjectClient, input: BootstrapInput): Promise<string[]> {
  const applied: string[] = [];
  for (const obj of bootstrapObjects(input)) {
    const subject = subjectOf(obj);
    try {
      const existing = await client.getOptional(addressOf(obj));
      if (existing && !isOurs(existing, input.project)) continue;
      await client.apply(obj, { fieldManager: BOOTSTRAP_FIELD_MANAGER, force: true, dryRun: false });
      applied.push(subject);
    } catch (err) {
      throw new BootstrapError(`bootstrap of project ${input.project.name}: ${subject}: ${messageOf(err)}`, { cause: err });
    }
  }
  return applied;
}

/** Deletes what bootstrap made for the Project (only objects carrying its labels); returns `Kind/namespace/name` of those deleted. */
export async function removeBootstrap(client: ObjectClient, input: Omit<BootstrapInput, 'registryCredentials'>): Promise<string[]> {
  const deleted: string[] = [];
  // with a pull secret whatever the credentials, so one made earlier goes too
  const objects = bootstrapObjects({ ...input, registryCredentials: { kind: 'token', token: '-' } }).reverse();
  for (const obj of objects) {
    try {
      const existing = await client.getOptional(addressOf(obj));
      if (!existing || !isOurs(existing, input.project)) continue;
      if (await client.delete(addressOf(obj))) deleted.push(subjectOf(obj));
    } catch (err) {
      throw new BootstrapError(`removing the bootstrap of project ${input.project.name}: ${subjectOf(obj)}: ${messageOf(err)}`, { cause: err });
    }
  }
  return deleted;
}

function isOurs(obj: KubeObject, project: ProjectSpec): boolean {
  const l = obj.metadata.labels ?? {};
  return l[MANAGED_BY] === BOOTSTRAP_FIELD_MANAGER && l[PROJECT_NAME_LABEL] === project.name && l[PROJECT_NAMESPACE_LABEL] === project.namespace;
}

function addressOf(obj: KubeObject) {
  return { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name, ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}) };
}

function subjectOf(obj: KubeObject): string {
  return [obj.kind, obj.metadata.namespace, obj.metadata.name].filter(Boolean).join('/');
}

/** `oci://host[:port]/path` → `host[:port]` */
function registryHost(repository: string): string {
  return repository.replace(/^oci:\/\//, '').split('/')[0];
}

/** The `kubernetes.io/dockerconfigjson` content for the registry of the Project's source. */
export function dockerConfigJson(host: string, creds: ProjectRegistryCredentials): string {
  if (creds.kind === 'dockerconfigjson') return creds.config;
  const entry =
    creds.kind === 'basic'
      ? { username: creds.username, password: creds.password, auth: Buffer.from(`${creds.username}:${creds.password}`).toString('base64') }
      : { registrytoken: creds.token };
  return JSON.stringify({ auths: { [host]: entry } });
}
