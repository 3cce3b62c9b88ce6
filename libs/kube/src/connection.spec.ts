import { harnessEnv } from '../../../test/harness/env';
import { adminConnection, createNamespace, uniqueName } from '../testdata/cluster';
import { ClusterConnection, serviceAccountImpersonation, type RequestEvent } from './connection';
import { ConnectionConfigError, ForbiddenError, NotFoundError } from './errors';
import { ObjectClient } from './object-client';

describe('ClusterConnection (real API server)', () => {
  const events: RequestEvent[] = [];
  const connection = adminConnection({ onRequest: (e) => events.push(e) });
  const admin = new ObjectClient(connection);
  afterAll(() => connection.close());

  async function whoAmI(conn: ClusterConnection): Promise<{ username: string; groups: string[] }> {
    const review = await conn.request<{ status: { userInfo: { username: string; groups: string[] } } }>({
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    return review.status.userInfo;
  }

  it('impersonates a service account without sending groups; the API server adds its groups', async () => {
    const imp = serviceAccountImpersonation('team-a', 'deployer');
    expect(imp.groups).toBeUndefined();
    expect(await whoAmI(connection.impersonate(imp))).toEqual({
      username: 'system:serviceaccount:team-a:deployer',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated'],
    });
  });

  it('sends every impersonated group as its own header line', async () => {
    const user = await whoAmI(connection.impersonate({ user: 'jane', groups: ['team-a', 'team-b'] }));
    expect(user).toEqual({ username: 'jane', groups: ['team-a', 'team-b', 'system:authenticated'] });
  });

  it('authenticates with a client certificate and key', async () => {
    const { kube } = harnessEnv();
    const byCert = ClusterConnection.create({
      server: kube.server,
      caData: kube.caData,
      clientCertData: kube.certAdmin.clientCertificateData,
      clientKeyData: kube.certAdmin.clientKeyData,
    });
    try {
      const review = await byCert.request<{ status: { userInfo: { username: string; groups: string[] } } }>({
        method: 'POST',
        path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      });
      expect(review.status.userInfo.username).toBe(kube.certAdmin.user);
      expect(review.status.userInfo.groups).toEqual(expect.arrayContaining(['system:masters']));
    } finally {
      await byCert.close();
    }
  });

  it('limits an impersonated service account to the namespace its group is bound in', async () => {
    const allowed = await createNamespace(admin, 'conn-allowed');
    const denied = await createNamespace(admin, 'conn-denied');
    const sa = uniqueName('sa');
    const applyOpts = { dryRun: false, force: true, fieldManager: 'flotilla-test' };
    await admin.apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'cm', namespace: allowed }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['*'] }] }, applyOpts);
    // bound to the namespace's service-account group: only honoured if the groups arrive intact
    await admin.apply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'cm', namespace: allowed },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm' },
      subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: `system:serviceaccounts:${allowed}` }],
    }, applyOpts);
    const asSa = admin.withConnection(connection.impersonate(serviceAccountImpersonation(allowed, sa)));
    const cm = (ns: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: ns }, data: { a: '1' } });
    const created = await asSa.apply(cm(allowed), applyOpts);
    expect(created.metadata.uid).toBeTruthy();
    const err = await asSa.apply(cm(denied), applyOpts).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ForbiddenError);
    expect((err as ForbiddenError).statusCode).toBe(403);
    expect((err as Error).message).toContain(`ConfigMap/${denied}/x`);
  });

  it('reports each request to the hook with status, method and a low-cardinality path', async () => {
    events.length = 0;
    await admin.getOptional({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: uniqueName('missing') });
    const notFound = events.find((e) => e.statusCode === 404);
    expect(notFound).toMatchObject({ method: 'GET', pathTemplate: '/api/v1/namespaces/{namespace}/configmaps/{name}' });
  });

  it('answers a 404 with undefined when the request allows absence, and NotFoundError otherwise', async () => {
    const path = `/api/v1/namespaces/default/configmaps/${uniqueName('missing')}`;
    await expect(connection.request({ method: 'GET', path, absentAsUndefined: true })).resolves.toBeUndefined();
    await expect(connection.request({ method: 'GET', path })).rejects.toBeInstanceOf(NotFoundError);
    // a 403 is still an error when absence is allowed
    await expect(connection.impersonate({ user: 'nobody' }).request({ method: 'GET', path, absentAsUndefined: true })).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('aborts requests of a view whose signal fired, without touching other views', async () => {
    const controller = new AbortController();
    const view = connection.withSignal(controller.signal);
    await expect(view.request({ method: 'GET', path: '/version' })).resolves.toMatchObject({ gitVersion: harnessEnv().kube.version });
    controller.abort(new Error('deadline'));
    await expect(view.request({ method: 'GET', path: '/version', subject: 'version' })).rejects.toMatchObject({ statusCode: 0, message: expect.stringContaining('deadline') });
    await expect(connection.request({ method: 'GET', path: '/version' })).resolves.toBeTruthy();
  });

  it("gives a view its own rate limit: the view's requests leave the connection's budget alone", async () => {
    // a budget of 2 requests that never refills within the test: a shared limiter would stall the last request
    const limited = adminConnection({ qps: 0.0001, burst: 2 });
    try {
      await limited.request({ method: 'GET', path: '/version' });
      const view = limited.withOwnRateLimit();
      await view.request({ method: 'GET', path: '/version' });
      await view.request({ method: 'GET', path: '/version' });
      await expect(limited.request({ method: 'GET', path: '/version' })).resolves.toMatchObject({ gitVersion: harnessEnv().kube.version });
    } finally {
      await limited.close();
    }
  }, 20_000);

  it('rejects a wrong token with 401', async () => {
    const kube = harnessEnv().kube;
    const bad = ClusterConnection.create({ server: kube.server, caData: kube.caData, token: 'nope' });
    try {
      await expect(bad.request({ method: 'GET', path: '/api/v1/namespaces' })).rejects.toMatchObject({ statusCode: 401 });
    } finally {
      await bad.close();
    }
  });

  it('refuses a server whose certificate the CA did not sign', async () => {
    const kube = harnessEnv().kube;
    const conn = ClusterConnection.create({ server: kube.server, token: kube.admin.token });
    try {
      await expect(conn.request({ method: 'GET', path: '/version' })).rejects.toMatchObject({ statusCode: 0 });
    } finally {
      await conn.close();
    }
  });

  it('validates credentials before connecting', () => {
    expect(() => ClusterConnection.create({ server: 'not a url', token: 't' })).toThrow(ConnectionConfigError);
    expect(() => ClusterConnection.create({ server: 'https://x' })).toThrow(/bearer token or a client certificate/);
    expect(() => ClusterConnection.create({ server: 'https://x', clientCertData: '-----BEGIN CERTIFICATE-----' })).toThrow(/together/);
    expect(() => ClusterConnection.create({ server: 'https://x', token: 't', caData: 'garbage' })).toThrow(/caData is not PEM/);
    expect(() => ClusterConnection.create({ server: 'https://x', token: 't', tokenFile: '/t' })).toThrow(/not both/);
    expect(() => ClusterConnection.create({ server: 'https://x', token: 't' }, { requestTimeoutMs: 0 })).toThrow(/requestTimeoutMs must be positive/);
  });
});
