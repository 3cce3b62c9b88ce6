// deploy/agent/ against a real API server: the CRD's schema, defaults,
// immutability, status subresource and printer columns, and the agent's RBAC
// (what its own token can and cannot do).
import { randomBytes } from 'node:crypto';
import {
  ClusterConnection,
  ForbiddenError,
  KubeApiError,
  ObjectClient,
  credentialsFromKubeconfig,
  serviceAccountImpersonation,
  type KubeObject,
} from '@flotilla/kube';
import { eventually } from '../../../libs/kube/testdata/eventually';
import { harnessEnv } from '../../../test/harness/env';
import { kubeRequest } from '../../../test/harness/kube-http';
import { serviceAccountSubject, waitUntilAllowed } from '../../../test/harness/kube-rbac';
import { AGENT_NAMESPACE, AGENT_SERVICE_ACCOUNT, adminClient, agentKubeconfig, CONNECTED_DEPLOY_DIR, grantSecretRead, installAgent, loadInstallManifests, removeConnectedInstall } from '../test/install';
import {
  DEFAULT_PATH,
  DEFAULT_TAG,
  PROJECT_API_VERSION,
  PROJECT_FINALIZER,
  PROJECT_GROUP,
  PROJECT_KIND,
  PROJECT_PLURAL,
  SUSPEND_ANNOTATION,
  type ProjectResource,
  type ProjectResourceSpec,
  type ProjectResourceStatus,
} from './project/project-resource';

const unique = (prefix: string) => `${prefix}-${randomBytes(3).toString('hex')}`;
const IMMUTABLE = 'spec.source and spec.serviceAccountName are immutable: create a new Project to point elsewhere';
const LEASE = 'flotilla-agent';
const TEST_HOLDER = 'deploy-manifests-spec';

function project(namespace: string, name: string, spec: ProjectResourceSpec): ProjectResource {
  return { apiVersion: PROJECT_API_VERSION, kind: PROJECT_KIND, metadata: { name, namespace }, spec };
}

const addr = (namespace: string, name: string) => ({ apiVersion: PROJECT_API_VERSION, kind: PROJECT_KIND, namespace, name });
const projectsPath = (namespace?: string) => `/apis/${PROJECT_GROUP}/v1alpha1${namespace ? `/namespaces/${namespace}` : ''}/${PROJECT_PLURAL}`;

/** The API error a call ended with (fails the test when it succeeded). */
async function refusal(call: Promise<unknown>): Promise<KubeApiError> {
  try {
    await call;
  } catch (err) {
    if (err instanceof KubeApiError) return err;
    throw err;
  }
  throw new Error('the API server accepted a request it should refuse');
}

describe('deploy/agent manifests (real API server)', () => {
  const kube = harnessEnv().kube;
  let admin: ObjectClient;
  let agent: ClusterConnection;
  let agentClient: ObjectClient;
  let ns: string;
  const apply = (obj: KubeObject) => admin.apply(obj, { dryRun: false, force: true, fieldManager: 'flotilla-test' });

  beforeAll(async () => {
    admin = adminClient();
    await installAgent(admin);
    ns = unique('tenant');
    await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'deployer', namespace: ns }, imagePullSecrets: [{ name: 'pull' }] } as KubeObject);
    await apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'pull', namespace: ns }, type: 'Opaque', stringData: { k: 'v' } } as KubeObject);
    const { credentials } = credentialsFromKubeconfig(await agentKubeconfig(admin));
    agent = ClusterConnection.create(credentials);
    agentClient = new ObjectClient(agent);
    // both bindings were just applied: RBAC learns of them through an informer
    const who = serviceAccountSubject(AGENT_NAMESPACE, AGENT_SERVICE_ACCOUNT);
    await waitUntilAllowed(kube, { ...who, namespace: ns, verb: 'list', resource: PROJECT_PLURAL, group: PROJECT_GROUP });
    await waitUntilAllowed(kube, { ...who, namespace: AGENT_NAMESPACE, verb: 'create', resource: 'leases', group: 'coordination.k8s.io' });
  });

  afterAll(async () => {
    // later spec files may run a real agent against this API server: leave it no
    // Projects to chase and no Lease held by a holder that will never renew it
    if (ns) await admin.connection.request({ method: 'DELETE', path: projectsPath(ns) });
    const lease = await admin.getOptional({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: AGENT_NAMESPACE, name: LEASE });
    if ((lease?.spec as { holderIdentity?: string } | undefined)?.holderIdentity === TEST_HOLDER) await admin.delete({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: AGENT_NAMESPACE, name: LEASE });
    await agent?.close();
    await admin?.connection.close();
  });

  describe('install', () => {
    it('loads the CRD and the namespace before everything else', () => {
      const objects = loadInstallManifests();
      expect(objects.slice(0, 2).map((o) => o.kind)).toEqual(['CustomResourceDefinition', 'Namespace']);
      expect(objects.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
        'ClusterRole/flotilla-agent',
        'ClusterRole/flotilla-agent-secret-reader',
        'ClusterRoleBinding/flotilla-agent',
        'CustomResourceDefinition/projects.projects.timoni.sh',
        'Deployment/flotilla-agent',
        'Namespace/flotilla-system',
        'Role/flotilla-agent-cdevents-outbox',
        'Role/flotilla-agent-leader-election',
        'RoleBinding/flotilla-agent-cdevents-outbox',
        'RoleBinding/flotilla-agent-leader-election',
        'ServiceAccount/flotilla-agent',
      ]);
    });

    it('installs again without error and serves the Project kind to a fresh client', async () => {
      await installAgent(admin);
      const fresh = new ObjectClient(admin.connection);
      expect(await fresh.resourceOf(PROJECT_API_VERSION, PROJECT_KIND)).toEqual({
        group: PROJECT_GROUP, version: 'v1alpha1', kind: PROJECT_KIND, resource: PROJECT_PLURAL, namespaced: true,
      });
      const deployment = await admin.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: AGENT_NAMESPACE, name: 'flotilla-agent' });
      const pod = (deployment.spec as { template: { spec: { serviceAccountName: string; containers: Array<{ args: string[]; securityContext: { readOnlyRootFilesystem: boolean } }> } } }).template.spec;
      expect(pod.serviceAccountName).toBe(AGENT_SERVICE_ACCOUNT);
      expect(pod.containers[0].args).toEqual(['--leader-elect', '--http-address=0.0.0.0:9090', '--cache-dir=/var/cache/flotilla']);
      expect(pod.containers[0].securityContext.readOnlyRootFilesystem).toBe(true);
    });
  });

  describe('schema', () => {
    it('fills tag and path with their defaults', async () => {
      const created = (await apply(project(ns, 'defaults', { source: { repository: 'oci://registry.example/p' } }))) as ProjectResource;
      expect(created.spec).toEqual({ source: { repository: 'oci://registry.example/p', tag: DEFAULT_TAG, path: DEFAULT_PATH } });
    });

    it.each([
      ['spec.source.repository', { source: { repository: 'https://x' } }],
      ['spec.source.tag', { source: { repository: 'oci://r/p', tag: 'bad tag' } }],
      ['spec.source.tag', { source: { repository: 'oci://r/p', tag: '-leading-dash' } }],
      ['spec.source.path', { source: { repository: 'oci://r/p', path: '../outside.cue' } }],
      ['spec.source.path', { source: { repository: 'oci://r/p', path: 'a/../../b.cue' } }],
      ['spec.source.path', { source: { repository: 'oci://r/p', path: '/etc/project.cue' } }],
      ['spec.serviceAccountName', { serviceAccountName: 'Not_A_Name', source: { repository: 'oci://r/p' } }],
      ['spec.source', { source: {} }],
    ])('refuses a bad %s with 422 naming the field', async (field, spec) => {
      const err = await refusal(apply(project(ns, unique('bad'), spec as ProjectResourceSpec)));
      expect(err.statusCode).toBe(422);
      expect(err.message).toContain(field);
    });

    it('accepts a nested relative path and dots inside names', async () => {
      const spec = { serviceAccountName: 'deployer', source: { repository: 'oci://r/p', tag: 'v1.2.3-rc.1', path: 'projects/..hidden/a..b.cue' } };
      expect(((await apply(project(ns, 'nested', spec))) as ProjectResource).spec).toEqual(spec);
    });
  });

  describe('immutability', () => {
    const name = 'pinned';
    beforeAll(async () => {
      await apply(project(ns, name, { source: { repository: 'oci://registry.example/pinned', tag: 'production' } }));
    });

    it.each([
      ['tag', { source: { tag: 'staging' } }],
      ['repository', { source: { repository: 'oci://registry.example/other' } }],
      ['path', { source: { path: 'other.cue' } }],
      ['serviceAccountName', { serviceAccountName: 'deployer' }],
    ])('refuses a change of %s', async (_field, change) => {
      const err = await refusal(admin.patch(addr(ns, name), { spec: change }, 'merge'));
      expect(err.statusCode).toBe(422);
      expect(err.message).toContain(IMMUTABLE);
    });

    it('refuses a change through server-side apply too', async () => {
      const err = await refusal(apply(project(ns, name, { source: { repository: 'oci://registry.example/pinned', tag: 'canary' } })));
      expect(err.status?.message).toContain(IMMUTABLE);
    });

    it('lets the CDEvents sink and its header change (a new generation), the header only as a Secret reference', async () => {
      const before = await admin.get(addr(ns, name));
      const header = { name: 'Authorization', secretKeyRef: { name: 'sink-token', key: 'value' } };
      const after = (await admin.patch(addr(ns, name), { spec: { cdevents: { sink: 'https://sink.example/events', header } } }, 'merge')) as ProjectResource;
      expect(after.spec.cdevents).toEqual({ sink: 'https://sink.example/events', header });
      expect(after.metadata.generation).toBe((before.metadata.generation ?? 0) + 1);
      const err = await refusal(admin.patch(addr(ns, name), { spec: { cdevents: { header: { secretKeyRef: null, value: 'Bearer x' } } } }, 'merge'));
      expect(err.statusCode).toBe(422);
      await admin.patch(addr(ns, name), { spec: { cdevents: null } }, 'merge');
    });

    it('accepts an update that leaves out defaulted fields (defaults apply before the rule)', async () => {
      const current = await admin.get(addr(ns, name));
      const body = { ...current, spec: { source: { repository: 'oci://registry.example/pinned', tag: 'production' } } };
      const updated = await admin.connection.request<ProjectResource>({ method: 'PUT', path: await admin.objectPath(addr(ns, name)), body });
      expect(updated.spec.source).toEqual({ repository: 'oci://registry.example/pinned', tag: 'production', path: DEFAULT_PATH });
    });

    it('lets annotations change without touching spec or generation', async () => {
      const before = await admin.get(addr(ns, name));
      const after = (await admin.patch(addr(ns, name), { metadata: { annotations: { [SUSPEND_ANNOTATION]: 'true' } } }, 'merge')) as ProjectResource;
      expect(after.metadata.annotations?.[SUSPEND_ANNOTATION]).toBe('true');
      expect(after.spec).toEqual(before.spec);
      expect(after.metadata.generation).toBe(before.metadata.generation);
    });
  });

  describe('status subresource', () => {
    const name = 'observed';
    // a function: `ns` is only known once the outer beforeAll ran
    const status = (): ProjectResourceStatus => ({
      observedGeneration: 1,
      conditions: [
        { type: 'Ready', status: 'True', reason: 'ReconciliationSucceeded', message: 'Applied revision production@sha256:abc', lastTransitionTime: '2026-01-02T03:04:05Z', observedGeneration: 1 },
        { type: 'Reconciling', status: 'False', reason: 'Idle', message: '', lastTransitionTime: '2026-01-02T03:04:05Z' },
      ],
      lastAppliedRevision: 'production@sha256:abc',
      lastAttemptedRevision: 'production@sha256:abc',
      lastHandledReconcileAt: 'now',
      components: [
        { name: 'app', status: 'Succeeded', instances: [{ name: 'web', namespace: ns, module: { name: 'configs', version: '1.0.0', digest: 'sha256:def' }, ready: true, objects: 3 }] },
        { name: 'infra', status: 'Failed', error: 'boom', instances: [{ name: 'db', namespace: ns, ready: false, objects: 0, error: 'boom' }] },
      ],
      namespaces: [ns],
      nextReconcileAt: '2026-01-02T03:14:05Z',
      failures: 0,
    });

    beforeAll(async () => {
      await apply(project(ns, name, { source: { repository: 'oci://registry.example/observed', tag: 'production' } }));
    });

    it('stores a full status written through /status and ignores spec there', async () => {
      const res = (await admin.patch(addr(ns, name), { spec: { source: { tag: 'ignored' } }, status: status() }, 'merge', { subresource: 'status' })) as ProjectResource;
      expect(res.status).toEqual(status());
      expect(res.spec.source.tag).toBe('production');
    });

    it('ignores status written through the main resource', async () => {
      const res = (await admin.patch(addr(ns, name), { metadata: { annotations: { note: 'x' } }, status: { failures: 7 } }, 'merge')) as ProjectResource;
      expect(res.status?.failures).toBe(0);
    });

    it('refuses a condition type the agent does not write', async () => {
      const bad = { conditions: [{ type: 'Degraded', status: 'True', reason: 'R', message: '', lastTransitionTime: '2026-01-02T03:04:05Z' }] };
      const err = await refusal(admin.patch(addr(ns, name), { status: bad }, 'merge', { subresource: 'status' }));
      expect(err.statusCode).toBe(422);
      expect(err.message).toContain('status.conditions[0].type');
    });

    it('shows Ready, Status, Revision and Suspended as table columns', async () => {
      await admin.patch(addr(ns, name), { metadata: { annotations: { [SUSPEND_ANNOTATION]: 'true' } } }, 'merge');
      const res = await kubeRequest(kube, `${projectsPath(ns)}/${name}`, { token: kube.admin.token, accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
      expect(res.status).toBe(200);
      const table = res.json as { kind: string; columnDefinitions: Array<{ name: string; priority: number }>; rows: Array<{ cells: unknown[] }> };
      expect(table.kind).toBe('Table');
      const columns = table.columnDefinitions.map((c) => c.name);
      expect(columns).toEqual(['Name', 'Ready', 'Status', 'Revision', 'Repository', 'Tag', 'Suspended', 'Age']);
      // kubectl's default view: Name, Ready, Revision, Age
      expect(table.columnDefinitions.filter((c) => c.priority === 0).map((c) => c.name)).toEqual(['Name', 'Ready', 'Revision', 'Age']);
      const cell = (column: string) => table.rows[0].cells[columns.indexOf(column)];
      expect(table.rows).toHaveLength(1);
      expect(cell('Name')).toBe(name);
      expect(cell('Ready')).toBe('True');
      expect(cell('Status')).toBe('Applied revision production@sha256:abc');
      expect(cell('Revision')).toBe('production@sha256:abc');
      expect(cell('Repository')).toBe('oci://registry.example/observed');
      expect(cell('Tag')).toBe('production');
      expect(cell('Suspended')).toBe('true');
    });
  });

  describe('the agent may', () => {
    const name = 'agent-owned';
    beforeAll(async () => {
      await apply(project(ns, name, { source: { repository: 'oci://registry.example/agent' } }));
    });

    it('list and watch Projects in every namespace', async () => {
      const all = await agent.request<{ items: KubeObject[] }>({ method: 'GET', path: projectsPath() });
      expect(all.items.map((p) => `${p.metadata.namespace}/${p.metadata.name}`)).toContain(`${ns}/${name}`);
      const events = agent.stream<{ type: string; object: KubeObject }>({ method: 'GET', path: projectsPath(), query: { watch: 1, fieldSelector: `metadata.name=${name}` } });
      for await (const ev of events) {
        expect(ev.type).toBe('ADDED');
        expect(ev.object.metadata.namespace).toBe(ns);
        break;
      }
    });

    it('add and remove its finalizer and write status', async () => {
      const withFinalizer = await agentClient.patch(addr(ns, name), { metadata: { finalizers: [PROJECT_FINALIZER] } }, 'merge');
      expect(withFinalizer.metadata.finalizers).toEqual([PROJECT_FINALIZER]);
      const withStatus = (await agentClient.patch(addr(ns, name), { status: { failures: 2 } }, 'merge', { subresource: 'status' })) as ProjectResource;
      expect(withStatus.status?.failures).toBe(2);
      const cleared = await agentClient.patch(addr(ns, name), { metadata: { finalizers: null } }, 'merge');
      expect(cleared.metadata.finalizers).toBeUndefined();
    });

    it('create core events in any namespace', async () => {
      const regarding = { apiVersion: PROJECT_API_VERSION, kind: PROJECT_KIND, namespace: ns, name };
      const core = await agent.request<KubeObject>({
        method: 'POST',
        path: `/api/v1/namespaces/${ns}/events`,
        body: {
          apiVersion: 'v1', kind: 'Event', metadata: { generateName: `${name}-` }, involvedObject: regarding,
          type: 'Normal', reason: 'Test', message: 'core event', source: { component: 'flotilla-agent' },
        },
      });
      expect(core.metadata.namespace).toBe(ns);
    });

    it('read a service account, and the secrets of a namespace that binds its secret-reader role', async () => {
      const sa = await agentClient.get({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: ns, name: 'deployer' });
      expect((sa as KubeObject & { imagePullSecrets: Array<{ name: string }> }).imagePullSecrets).toEqual([{ name: 'pull' }]);
      await grantSecretRead(admin, ns);
      const secret = await agentClient.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'pull' });
      expect(secret.metadata.name).toBe('pull');
    });

    it('impersonate a Project service account (and gets its groups from the API server)', async () => {
      const review = await agent.impersonate(serviceAccountImpersonation(ns, 'deployer')).request<{ status: { userInfo: { username: string; groups: string[] } } }>({
        method: 'POST',
        path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      });
      expect(review.status.userInfo.username).toBe(`system:serviceaccount:${ns}:deployer`);
      expect(review.status.userInfo.groups).toEqual(expect.arrayContaining(['system:serviceaccounts', `system:serviceaccounts:${ns}`]));
    });

    it('create, read and renew its Lease in flotilla-system', async () => {
      const leases = `/apis/coordination.k8s.io/v1/namespaces/${AGENT_NAMESPACE}/leases`;
      const body = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: LEASE }, spec: { holderIdentity: TEST_HOLDER, leaseDurationSeconds: 15 } };
      try {
        await agent.request({ method: 'POST', path: leases, body });
      } catch (err) {
        // another spec's agent may hold it already: 409 comes after authorization, so create was allowed
        if (!(err instanceof KubeApiError && err.statusCode === 409)) throw err;
      }
      const lease = await agent.request<KubeObject & { spec: Record<string, unknown> }>({ method: 'GET', path: `${leases}/${LEASE}` });
      const renewed = await agent.request<KubeObject & { spec: { renewTime?: string } }>({
        method: 'PUT', path: `${leases}/${LEASE}`, body: { ...lease, spec: { ...lease.spec, renewTime: new Date().toISOString().replace('Z', '000Z') } },
      });
      expect(renewed.spec.renewTime).toBeDefined();
    });
  });

  describe('the agent may not', () => {
    const forbidden = async (call: Promise<unknown>) => expect(await refusal(call)).toBeInstanceOf(ForbiddenError);

    it('list or watch secrets', async () => {
      await forbidden(agent.request({ method: 'GET', path: `/api/v1/namespaces/${ns}/secrets` }));
      await forbidden(agent.request({ method: 'GET', path: '/api/v1/secrets', query: { watch: 1, timeoutSeconds: 1 } }));
    });

    it('read a Secret in a namespace that did not bind its secret-reader role, its own namespace included', async () => {
      const other = unique('other');
      await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: other } });
      try {
        await apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db-password', namespace: other }, type: 'Opaque', stringData: { password: 'hunter2' } } as KubeObject);
        await apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'not-the-agents', namespace: AGENT_NAMESPACE }, type: 'Opaque', stringData: { k: 'v' } } as KubeObject);
        await forbidden(agentClient.get({ apiVersion: 'v1', kind: 'Secret', namespace: other, name: 'db-password' }));
        await forbidden(agentClient.get({ apiVersion: 'v1', kind: 'Secret', namespace: AGENT_NAMESPACE, name: 'not-the-agents' }));
      } finally {
        await admin.delete({ apiVersion: 'v1', kind: 'Secret', namespace: AGENT_NAMESPACE, name: 'not-the-agents' }).catch(() => undefined);
        await admin.delete({ apiVersion: 'v1', kind: 'Namespace', name: other }).catch(() => undefined);
      }
    });

    it('patch events, or write events.k8s.io events', async () => {
      const regarding = { apiVersion: PROJECT_API_VERSION, kind: PROJECT_KIND, namespace: ns, name: 'agent-owned' };
      const core = await agent.request<KubeObject>({
        method: 'POST',
        path: `/api/v1/namespaces/${ns}/events`,
        body: { apiVersion: 'v1', kind: 'Event', metadata: { generateName: 'agent-' }, involvedObject: regarding, type: 'Normal', reason: 'Test', message: 'core event' },
      });
      await forbidden(agent.request({ method: 'PATCH', path: `/api/v1/namespaces/${ns}/events/${core.metadata.name}`, body: { count: 2 }, contentType: 'application/merge-patch+json' }));
      await forbidden(agent.request({
        method: 'POST',
        path: `/apis/events.k8s.io/v1/namespaces/${ns}/events`,
        body: {
          apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { generateName: 'agent-' }, regarding,
          type: 'Normal', reason: 'Test', action: 'Reconcile', note: 'events.k8s.io event',
          eventTime: new Date().toISOString().replace('Z', '000Z'), reportingController: 'flotilla.dev/agent', reportingInstance: 'test',
        },
      }));
    });

    it('impersonate groups or users that are not service accounts', async () => {
      const review = { method: 'POST' as const, path: '/apis/authentication.k8s.io/v1/selfsubjectreviews', body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } };
      await forbidden(agent.impersonate({ user: `system:serviceaccount:${ns}:deployer`, groups: ['system:masters'] }).request(review));
      await forbidden(agent.impersonate({ user: 'jane' }).request(review));
      await forbidden(agent.impersonate({ user: kube.admin.user }).request(review));
    });

    it('create or read Leases outside its own', async () => {
      const body = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: LEASE }, spec: { holderIdentity: 'test' } };
      await forbidden(agent.request({ method: 'POST', path: `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, body }));
      await forbidden(agent.request({ method: 'GET', path: `/apis/coordination.k8s.io/v1/namespaces/${AGENT_NAMESPACE}/leases/someone-else` }));
    });

    it('write ConfigMaps or workloads itself', async () => {
      await forbidden(agent.request({ method: 'POST', path: `/api/v1/namespaces/${ns}/configmaps`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nope' } } }));
      await forbidden(agentClient.apply({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'nope', namespace: ns } }));
    });

    it('create or delete Projects (that is the user\'s)', async () => {
      await forbidden(agentClient.apply(project(ns, 'by-agent', { source: { repository: 'oci://r/p' } })));
      await forbidden(agentClient.delete(addr(ns, 'agent-owned')));
    });
  });
  describe('the connected agent (deploy/agent-connected on top)', () => {
    const IDENTITY = 'flotilla-agent-identity';
    const secret = (name: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: AGENT_NAMESPACE }, type: 'Opaque', stringData: { k: 'v' } }) as KubeObject;
    const asAgent = { dryRun: false, force: true, fieldManager: 'flotilla-agent-hub' };
    const assigned = unique('assigned');
    const forbidden = async (call: Promise<unknown>) => expect(await refusal(call)).toBeInstanceOf(ForbiddenError);

    beforeAll(async () => {
      await installAgent(admin, CONNECTED_DEPLOY_DIR);
      await apply(secret('flotilla-agent-hub'));
      const who = serviceAccountSubject(AGENT_NAMESPACE, AGENT_SERVICE_ACCOUNT);
      await waitUntilAllowed(kube, { ...who, namespace: '', verb: 'create', resource: 'namespaces' });
    });

    afterAll(async () => {
      // later specs expect the standalone install alone
      await removeConnectedInstall(admin);
      await admin.delete({ apiVersion: 'v1', kind: 'Secret', namespace: AGENT_NAMESPACE, name: IDENTITY }).catch(() => undefined);
      await admin.delete({ apiVersion: 'v1', kind: 'Namespace', name: assigned }).catch(() => undefined);
    });

    it('creates an assignment\'s namespace, but may not patch or relabel a namespace', async () => {
      const made = await agent.request<KubeObject>({ method: 'POST', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: assigned } } });
      expect(made.metadata.name).toBe(assigned);
      const relabel = { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'privileged' } } };
      await forbidden(agentClient.patch({ apiVersion: 'v1', kind: 'Namespace', name: ns }, relabel, 'merge'));
      await forbidden(agentClient.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: relabel.metadata.labels } }, asAgent));
    });

    it('creates, reads and renews its identity Secret by server-side apply, and no other Secret of its namespace', async () => {
      // the Role was just bound: wait until RBAC honours it, by the write it exists for
      const written = await eventually('the identity Secret written by the agent', async () => {
        try {
          return await agentClient.apply(secret(IDENTITY), asAgent);
        } catch (err) {
          if (err instanceof ForbiddenError) return undefined;
          throw err;
        }
      }, 15_000);
      expect(written.metadata.name).toBe(IDENTITY);
      expect((await agentClient.get({ apiVersion: 'v1', kind: 'Secret', namespace: AGENT_NAMESPACE, name: IDENTITY })).metadata.name).toBe(IDENTITY);
      const renewed = await agentClient.apply({ ...secret(IDENTITY), stringData: { k: 'renewed' } } as KubeObject, asAgent);
      expect(Buffer.from((renewed.data as Record<string, string>).k, 'base64').toString()).toBe('renewed');
      // the bootstrap token's Secret beside it, and any other name
      await forbidden(agentClient.get({ apiVersion: 'v1', kind: 'Secret', namespace: AGENT_NAMESPACE, name: 'flotilla-agent-hub' }));
      await forbidden(agentClient.apply(secret('flotilla-agent-hub'), asAgent));
      await forbidden(agentClient.apply(secret('planted'), asAgent));
      await forbidden(agent.request({ method: 'POST', path: `/api/v1/namespaces/${AGENT_NAMESPACE}/secrets`, body: secret('planted') }));
    });

    it('patches its own Deployment (an upgrade from the hub), and may not read it, create one or patch another', async () => {
      const deployment = (name: string) => ({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: AGENT_NAMESPACE, name });
      // a patch that only tests: authorized as a patch, changes nothing
      const noop = [{ op: 'test', path: '/metadata/name', value: 'flotilla-agent' }];
      const patched = await eventually('the agent\'s own Deployment patched', async () => {
        try {
          return await agentClient.patch(deployment('flotilla-agent'), noop, 'json');
        } catch (err) {
          if (err instanceof ForbiddenError) return undefined;
          throw err;
        }
      }, 15_000);
      expect(patched.metadata.name).toBe('flotilla-agent');
      await forbidden(agentClient.patch(deployment('someone-else'), [{ op: 'test', path: '/metadata/name', value: 'someone-else' }], 'json'));
      await forbidden(agentClient.get(deployment('flotilla-agent')));
      await forbidden(agentClient.patch({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'flotilla-agent' }, noop, 'json'));
      await forbidden(agent.request({ method: 'POST', path: `/apis/apps/v1/namespaces/${AGENT_NAMESPACE}/deployments`, body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'planted' } } }));
    });
  });
});
