import { randomBytes } from 'node:crypto';
import { harnessEnv } from './env';
import { kubeRequest, type KubeRequestOptions, type KubeResponse } from './kube-http';
import type { KubeEndpoint } from './types';

// Proves the harness API server is the real thing: TLS, static tokens, RBAC,
// impersonation, TokenRequest and CRDs behave as on a cluster.

const kube: KubeEndpoint = harnessEnv().kube;
const suffix = randomBytes(3).toString('hex');
const ns = `kube-spec-${suffix}`;
const otherNs = `kube-spec-other-${suffix}`;
const sa = 'configmap-writer';
const saUser = `system:serviceaccount:${ns}:${sa}`;
const saGroups = ['system:serviceaccounts', `system:serviceaccounts:${ns}`];

function call(path: string, options: Partial<KubeRequestOptions> = {}): Promise<KubeResponse> {
  return kubeRequest(kube, path, { token: kube.admin.token, ...options });
}

function post(path: string, body: unknown, options: Partial<KubeRequestOptions> = {}): Promise<KubeResponse> {
  return call(path, { method: 'POST', body, ...options });
}

function configMap(name: string) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } };
}

async function selfSubject(options: Partial<KubeRequestOptions>): Promise<{ username: string; groups: string[] }> {
  const res = await post('/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, options);
  expect(res.status).toBe(201);
  return (res.json as { status: { userInfo: { username: string; groups: string[] } } }).status.userInfo;
}

beforeAll(async () => {
  for (const name of [ns, otherNs]) {
    expect((await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } })).status).toBe(201);
  }
  expect((await post(`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa } })).status).toBe(201);
  const role = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'configmaps' },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create', 'update', 'delete'] }],
  };
  expect((await post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, role)).status).toBe(201);
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'configmaps' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmaps' },
    subjects: [{ kind: 'ServiceAccount', name: sa, namespace: ns }],
  };
  expect((await post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, binding)).status).toBe(201);
});

describe('harness kube-apiserver', () => {
  it('reports a real release version', async () => {
    const res = await call('/version');
    expect(res.status).toBe(200);
    expect(kube.version).toMatch(/^v1\.\d+\.\d+$/);
    expect((res.json as { gitVersion: string }).gitVersion).toBe(kube.version);
  });

  it('lets the admin read the namespace it created', async () => {
    const res = await call(`/api/v1/namespaces/${ns}`);
    expect(res.status).toBe(200);
    expect((res.json as { metadata: { name: string } }).metadata.name).toBe(ns);
  });

  it('rejects an unknown token', async () => {
    expect((await call('/api/v1/namespaces', { token: 'not-a-token' })).status).toBe(401);
  });

  it('denies the unprivileged identity', async () => {
    const token = kube.unprivileged.token;
    expect((await selfSubject({ token })).username).toBe(kube.unprivileged.user);
    expect((await call('/api/v1/namespaces', { token })).status).toBe(403);
    expect((await post(`/api/v1/namespaces/${ns}/configmaps`, configMap('nope'), { token })).status).toBe(403);
  });

  it('sends each Impersonate-Group as its own header line', async () => {
    const who = await selfSubject({ impersonateUser: 'someone', impersonateGroups: ['team-a', 'team-b'] });
    expect(who.username).toBe('someone');
    expect(who.groups).toEqual(expect.arrayContaining(['team-a', 'team-b', 'system:authenticated']));
    expect(who.groups).not.toContain('team-a,team-b');
  });

  it('applies RBAC to an impersonated service account', async () => {
    const as = { impersonateUser: saUser, impersonateGroups: saGroups };
    expect((await post(`/api/v1/namespaces/${ns}/configmaps`, configMap('impersonated'), as)).status).toBe(201);
    expect((await post(`/api/v1/namespaces/${otherNs}/configmaps`, configMap('impersonated'), as)).status).toBe(403);
    expect((await call(`/api/v1/namespaces/${ns}/secrets`, as)).status).toBe(403);
  });

  it('issues service account tokens through TokenRequest', async () => {
    const res = await post(`/api/v1/namespaces/${ns}/serviceaccounts/${sa}/token`, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 600 },
    });
    expect(res.status).toBe(201);
    const token = (res.json as { status: { token: string } }).status.token;
    const who = await selfSubject({ token });
    expect(who.username).toBe(saUser);
    expect(who.groups).toEqual(expect.arrayContaining(saGroups));
    expect((await post(`/api/v1/namespaces/${ns}/configmaps`, configMap('from-token'), { token })).status).toBe(201);
    expect((await call(`/api/v1/namespaces/${ns}/secrets`, { token })).status).toBe(403);
  });

  it('serves a custom resource once its CRD is Established', async () => {
    const group = `spec${suffix}.flotilla.test`;
    const crd = {
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
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
              },
            },
          },
        ],
      },
    };
    expect((await post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);

    const established = async () => {
      const res = await call(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`);
      const conditions = (res.json as { status?: { conditions?: { type: string; status: string }[] } }).status?.conditions ?? [];
      return conditions.some((c) => c.type === 'Established' && c.status === 'True');
    };
    const deadline = Date.now() + 20_000;
    while (!(await established())) {
      if (Date.now() > deadline) throw new Error(`CRD widgets.${group} not Established within 20 s`);
      await new Promise((r) => setTimeout(r, 100));
    }

    // The handler may not have seen the CRD yet (404): retry briefly. A create within
    // 2 s of Established is held 2 s by the server itself (customresource_handler.go).
    const widget = { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 3 } };
    let created = await post(`/apis/${group}/v1/namespaces/${ns}/widgets`, widget);
    for (let i = 0; created.status === 404 && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 100));
      created = await post(`/apis/${group}/v1/namespaces/${ns}/widgets`, widget);
    }
    expect(created.status).toBe(201);
    const got = await call(`/apis/${group}/v1/namespaces/${ns}/widgets/w1`);
    expect((got.json as { spec: { size: number } }).spec.size).toBe(3);
  });
});
