import { ClusterConnection as KubeConnection, ObjectClient } from '@flotilla/kube';
import { AuthError, RegistryError } from '@flotilla/oci';
import { randomBytes } from 'node:crypto';
import { harnessEnv } from '../../../../../test/harness/env';
import type { ClusterEntity } from '../../database/entities';
import type { ClusterCredentials } from '@flotilla/kube';
import { isAuthRefusal, PullSecretReader } from './pull-secret-credentials';
import type { PushConnectionLease } from '../push-connections';

const cluster = (name: string, mode: 'push' | 'pull') => ({ id: `id-${name}`, name, mode }) as ClusterEntity;

describe('isAuthRefusal', () => {
  it('is true for an auth failure and for 401/403, false otherwise', () => {
    expect(isAuthRefusal(new AuthError('r.example', 'no credentials'))).toBe(true);
    expect(isAuthRefusal(new RegistryError('HEAD', 'https://r.example/v2/a/manifests/b', 401, 'UNAUTHORIZED', ''))).toBe(true);
    expect(isAuthRefusal(new RegistryError('HEAD', 'https://r.example/v2/a/manifests/b', 403, 'DENIED', ''))).toBe(true);
    expect(isAuthRefusal(new RegistryError('HEAD', 'https://r.example/v2/a/manifests/b', 404, 'MANIFEST_UNKNOWN', ''))).toBe(false);
    expect(isAuthRefusal(new Error('ECONNREFUSED'))).toBe(false);
  });
});

describe('PullSecretReader against the harness API server', () => {
  const kube = harnessEnv().kube;
  const admin = new ObjectClient(KubeConnection.create({ server: kube.server, caData: kube.caData, token: kube.admin.token }));
  const hubConnection: ClusterCredentials = { server: kube.server, caData: kube.caData, insecureSkipTLSVerify: false, token: kube.admin.token };
  /** a lease on a connection of its own, closed when given back (each given back once: the reader must not keep one) */
  const leases: { given: number; taken: number } = { given: 0, taken: 0 };
  const lease = (): PushConnectionLease => {
    const connection = KubeConnection.create(hubConnection);
    leases.taken++;
    return { connection, release: () => void (leases.given++, connection.close()) };
  };
  const ns = `pull-${randomBytes(4).toString('hex')}`;
  const apply = { dryRun: false, force: true, fieldManager: 'flotilla-test' };
  const project = (serviceAccountName: string) => ({ name: 'p', namespace: ns, serviceAccountName, repository: 'oci://registry.example/p', tag: 'latest' });

  beforeAll(async () => {
    const config = JSON.stringify({ auths: { 'registry.example': { auth: Buffer.from('u:secret').toString('base64') } } });
    await admin.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, apply);
    await admin.apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'registry', namespace: ns }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': Buffer.from(config).toString('base64') } }, apply);
    await admin.apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'with', namespace: ns }, imagePullSecrets: [{ name: 'registry' }] }, apply);
    await admin.apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'without', namespace: ns } }, apply);
  });

  afterAll(async () => {
    await admin.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns }).catch(() => undefined);
    await admin.connection.close();
  });

  it('finds the pull secrets in the first push cluster that has them, reading each cluster once', async () => {
    const asked: string[] = [];
    const reader = new PullSecretReader(async (c) => (asked.push(c.name), c.name === 'broken' ? null : lease()));
    const clusters = [cluster('agent', 'pull'), cluster('broken', 'push'), cluster('spoke', 'push')];
    const found = await reader.lookup(project('with'), clusters);
    expect(found).toMatchObject({ found: true, cluster: 'spoke', credentials: { fingerprint: expect.stringMatching(/^pull-secrets:/) } });
    if (!found.found) throw new Error('unreachable');
    const source = found.credentials.source;
    expect(typeof source === 'function' && source('registry.example')).toEqual({ kind: 'basic', username: 'u', password: 'secret' });
    await reader.lookup(project('with'), clusters);
    expect(asked).toEqual(['broken', 'spoke']);
    expect(leases).toEqual({ taken: 1, given: 1 });
  });

  it('says what it tried when no cluster has pull secrets', async () => {
    const reader = new PullSecretReader(async (c) => (c.name === 'broken' ? null : lease()));
    const found = await reader.lookup(project('without'), [cluster('broken', 'push'), cluster('spoke', 'push')]);
    expect(found).toEqual({
      found: false,
      tried: [`pull secrets of ${ns}/without in cluster broken: no stored endpoint or credentials for push mode`, `pull secrets of ${ns}/without in cluster spoke: none`],
    });
    expect(await reader.lookup(project('without'), [cluster('agent', 'pull')])).toEqual({ found: false, tried: [`pull secrets of ${ns}/without: no push cluster to read them in`] });
    expect(leases.given).toBe(leases.taken);
  });
});
