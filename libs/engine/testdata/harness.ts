// Integration helpers (real registry and API server from the harness): a
// tenant namespace with a namespace-scoped service account, artifact pushes.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ClusterConnection, ResourceManager, type KubeObject, type ObjectClient } from '@flotilla/kube';
import { RegistryClient, pushArtifact, pushModule, defaultPushModuleOptions, type Credentials } from '@flotilla/oci';
import { harnessEnv } from '../../../test/harness/env';
import { serviceAccountSubject, waitUntilAllowed } from '../../../test/harness/kube-rbac';

export const MODULE_DIR = join(__dirname, 'modules', 'configs');

export function unique(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`;
}

export function adminManager(): { connection: ClusterConnection; manager: ResourceManager } {
  const kube = harnessEnv().kube;
  const connection = ClusterConnection.create({ server: kube.server, caData: kube.caData, token: kube.admin.token });
  return { connection, manager: new ResourceManager(connection) };
}

const apply = (client: ObjectClient, obj: KubeObject) => client.apply(obj, { dryRun: false, force: true, fieldManager: 'flotilla-test' });

/**
 * A namespace whose service account may do anything inside it and nothing
 * outside (its Role also lets it GET its own Namespace object, which the
 * inventory write checks).
 */
export async function createTenant(client: ObjectClient, prefix: string, serviceAccount = 'deployer'): Promise<string> {
  const ns = unique(prefix);
  await apply(client, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await apply(client, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: serviceAccount, namespace: ns } });
  await apply(client, {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'tenant-admin', namespace: ns },
    rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
  });
  await apply(client, {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'tenant-admin', namespace: ns },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'tenant-admin' },
    subjects: [{ kind: 'ServiceAccount', name: serviceAccount, namespace: ns }],
  });
  await waitUntilAllowed(harnessEnv().kube, { ...serviceAccountSubject(ns, serviceAccount), namespace: ns, verb: 'create', resource: 'configmaps' });
  return ns;
}

export function registryHost(auth = false): string {
  const env = harnessEnv();
  return auth ? env.registryAuth.host : env.registry.host;
}

export function registryClient(credentials: Credentials = { kind: 'anonymous' }): RegistryClient {
  return new RegistryClient({ credentials });
}

/** Pushes the test module once per registry; returns its `oci://` URL. */
const pushed = new Map<string, Promise<string>>();
export function pushTestModule(client: RegistryClient, host: string): Promise<string> {
  let p = pushed.get(host);
  if (!p) {
    const url = `oci://${host}/modules/configs`;
    p = pushModule(client, url, MODULE_DIR, defaultPushModuleOptions('1.0.0')).then(() => url);
    pushed.set(host, p);
  }
  return p;
}

/** Writes `files` to a fresh directory and pushes it as a project artifact under `tag`. */
export async function pushProject(client: RegistryClient, url: string, files: Record<string, string>, tag = 'latest'): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'flotilla-project-'));
  try {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    const res = await pushArtifact(client, url, dir, { tags: [tag], contentType: 'generic', annotations: {} });
    return res.digest;
  } finally {
    // pushed (or not): the registry holds what counts
    rmSync(dir, { recursive: true, force: true });
  }
}
