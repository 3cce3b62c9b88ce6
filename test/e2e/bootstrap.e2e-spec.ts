import { RegistryClient } from '@flotilla/oci';
import { harnessEnv } from '../harness/env';
import { shopProjectFiles } from './fixtures/projects';
import type { HubFleet } from './support/hub-fleet';
import { projectRepository, publishProject, publishWebapp } from './support/publish';
import { eventually } from './support/eventually';
import { configMapData, createProject, readyOn, target } from './support/shop';
import { deleteNamespaces, uniqueName } from './support/spoke';
import { spokeSuite } from './support/suite';

// Project bootstrap on a push cluster (issue 16, item 1; the RFC's "Project
// bootstrap"): the hub creates the Project's namespace, service account and
// role binding with the cluster's own credentials before the run, and
// removes them with the Project; objects that were there before are used,
// never taken over or removed. The harness API server has no
// controller-manager, so the aggregated ClusterRole `admin` has no rules:
// the run that needs rights binds `cluster-admin`, and `admin` is checked on
// a tenant whose Roles the suite made.

jest.setTimeout(120_000);

describe('Project bootstrap on a push cluster', () => {
  let fleet: HubFleet;
  const { registry, kube, ns } = spokeSuite('e2e-boot', { started: (f) => (fleet = f) });
  let moduleUrl: string;
  const bootNs = `${ns}-made`;
  const sealedNs = `${ns}-sealed`;
  afterAll(() => deleteNamespaces(kube, [bootNs, sealedNs]));

  beforeAll(async () => {
    moduleUrl = await publishWebapp(registry);
  });

  const labelsOf = async (apiVersion: string, kind: string, name: string, namespace?: string) =>
    (await kube.get({ apiVersion, kind, name, ...(namespace ? { namespace } : {}) })).metadata.labels ?? {};
  const gone = async (apiVersion: string, kind: string, name: string, namespace?: string) => {
    const o = await kube.getOptional({ apiVersion, kind, name, ...(namespace ? { namespace } : {}) });
    // no namespace controller runs here: a deleted namespace stays Terminating
    return o === undefined || o.metadata.deletionTimestamp !== undefined;
  };

  it('creates the namespace, service account and cluster-admin binding before the first run, and removes them with the Project', () =>
    fleet.guard(async () => {
      const repo = projectRepository();
      const revision = `latest@${await publishProject(registry, repo, shopProjectFiles({ moduleUrl, moduleVersion: '1.0.0', namespace: bootNs, infra: ['db'], message: 'hi' }))}`;
      expect(await kube.getOptional({ apiVersion: 'v1', kind: 'Namespace', name: bootNs })).toBeUndefined();
      await createProject(fleet, { name: 'boot', namespace: bootNs, repository: repo }, { serviceAccountName: 'boot-sa', bootstrap: { serviceAccountRole: 'cluster-admin' } });
      expect((await fleet.expectCall(200, 'GET', '/api/v1/projects/boot')).body.bootstrap).toEqual({ serviceAccountRole: 'cluster-admin' });

      await readyOn(fleet, 'boot', 'spoke-1', revision);
      const ours = { 'app.kubernetes.io/managed-by': 'flotilla-bootstrap', 'project.flotilla.dev/name': 'boot', 'project.flotilla.dev/namespace': bootNs };
      expect(await labelsOf('v1', 'Namespace', bootNs)).toMatchObject(ours);
      expect(await labelsOf('v1', 'ServiceAccount', 'boot-sa', bootNs)).toMatchObject(ours);
      const binding = await kube.get({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', name: `flotilla:${bootNs}:boot` });
      expect(binding).toMatchObject({ roleRef: { kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [{ kind: 'ServiceAccount', name: 'boot-sa', namespace: bootNs }] });
      expect(Object.keys(await configMapData(kube, bootNs)).sort()).toEqual(['db-config', 'web-config']);

      await fleet.expectCall(202, 'DELETE', '/api/v1/projects/boot');
      await eventually('the Project to be gone', async () => ((await fleet.call('GET', '/api/v1/projects/boot')).status === 404 ? true : undefined), { timeoutMs: 30_000 });
      expect(await gone('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', `flotilla:${bootNs}:boot`)).toBe(true);
      expect(await gone('v1', 'ServiceAccount', 'boot-sa', bootNs)).toBe(true);
      expect(await gone('v1', 'Namespace', bootNs)).toBe(true);
    })());

  it('binds admin in the namespace, uses what existed before, and removes only what it made', () =>
    fleet.guard(async () => {
      const repo = projectRepository();
      const revision = `latest@${await publishProject(registry, repo, shopProjectFiles({ moduleUrl, moduleVersion: '1.0.0', namespace: ns, infra: ['db'], message: 'hi' }))}`;
      // the suite made the namespace and the `deployer` service account (with Roles of its own)
      await createProject(fleet, { name: 'guest', namespace: ns, repository: repo }, { bootstrap: { serviceAccountRole: 'admin' } });
      await readyOn(fleet, 'guest', 'spoke-1', revision);
      const binding = await kube.get({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', namespace: ns, name: 'flotilla:guest' });
      expect(binding).toMatchObject({ roleRef: { kind: 'ClusterRole', name: 'admin' }, subjects: [{ kind: 'ServiceAccount', name: 'deployer', namespace: ns }] });
      expect(await labelsOf('v1', 'Namespace', ns)).not.toHaveProperty(['app.kubernetes.io/managed-by']);
      expect(await labelsOf('v1', 'ServiceAccount', 'deployer', ns)).not.toHaveProperty(['app.kubernetes.io/managed-by']);

      // removing the cluster from the targets removes the bootstrap there too
      await fleet.expectCall(200, 'PATCH', '/api/v1/projects/guest', { targets: { names: ['elsewhere'] } });
      await eventually('the Target to be gone', async () => ((await fleet.call('GET', '/api/v1/projects/guest/targets/spoke-1')).status === 404 ? true : undefined), {
        timeoutMs: 30_000,
        observe: () => target(fleet, 'guest', 'spoke-1'),
      });
      expect(await gone('rbac.authorization.k8s.io/v1', 'RoleBinding', 'flotilla:guest', ns)).toBe(true);
      expect(await kube.getOptional({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: ns, name: 'deployer' })).toBeDefined();
      expect((await kube.get({ apiVersion: 'v1', kind: 'Namespace', name: ns })).metadata.deletionTimestamp).toBeUndefined();
    })());

  it('makes the image pull secret from the Project’s registry credentials, for its source registry', () =>
    fleet.guard(async () => {
      const auth = harnessEnv().registryAuth;
      const privateRegistry = new RegistryClient({ credentials: { kind: 'basic', username: auth.username, password: auth.password } });
      const privateModule = await publishWebapp(privateRegistry, '1.0.0', auth.host);
      const repo = `oci://${auth.host}/${uniqueName('e2e/projects/sealed')}`;
      const revision = `latest@${await publishProject(privateRegistry, repo, shopProjectFiles({ moduleUrl: privateModule, moduleVersion: '1.0.0', namespace: sealedNs, infra: ['db'], message: 'hi' }))}`;
      await createProject(fleet, { name: 'sealed', namespace: sealedNs, repository: repo }, {
        serviceAccountName: 'sealed-sa',
        bootstrap: { serviceAccountRole: 'cluster-admin' },
        registryCredentials: { username: auth.username, password: auth.password },
      });
      await readyOn(fleet, 'sealed', 'spoke-1', revision);
      const secret = await kube.get({ apiVersion: 'v1', kind: 'Secret', namespace: sealedNs, name: 'sealed-sa-registry' });
      expect(secret.type).toBe('kubernetes.io/dockerconfigjson');
      const config = JSON.parse(Buffer.from((secret.data as Record<string, string>)['.dockerconfigjson'], 'base64').toString()) as { auths: Record<string, { username: string }> };
      expect(Object.keys(config.auths)).toEqual([auth.host]);
      expect(config.auths[auth.host].username).toBe(auth.username);
      expect(await kube.get({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: sealedNs, name: 'sealed-sa' })).toMatchObject({ imagePullSecrets: [{ name: 'sealed-sa-registry' }] });

      await fleet.expectCall(202, 'DELETE', '/api/v1/projects/sealed');
      await eventually('the Project to be gone', async () => ((await fleet.call('GET', '/api/v1/projects/sealed')).status === 404 ? true : undefined), { timeoutMs: 30_000 });
      expect(await gone('v1', 'Secret', 'sealed-sa-registry', sealedNs)).toBe(true);
      expect(await gone('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', `flotilla:${sealedNs}:sealed`)).toBe(true);
    })());

  it('refuses an unknown role, changing nothing', () =>
    fleet.guard(async () => {
      const res = await fleet.call('POST', '/api/v1/projects', { name: 'bad-boot', namespace: ns, source: { repository: 'oci://127.0.0.1:1/none' }, bootstrap: { serviceAccountRole: 'root' } });
      expect(res.status).toBe(400);
      expect(res.text).toContain('bootstrap.serviceAccountRole: must be admin or cluster-admin');
      expect((await fleet.call('GET', '/api/v1/projects/bad-boot')).status).toBe(404);
    })());
});
