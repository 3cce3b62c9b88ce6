import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessEnv } from '../../../test/harness/env';
import { ClusterConnection } from './connection';
import { InClusterConfigError, KubeApiError } from './errors';
import { inClusterCredentials, inClusterServer } from './in-cluster';

const kube = harnessEnv().kube;
const server = new URL(kube.server);
const env = { KUBERNETES_SERVICE_HOST: server.hostname, KUBERNETES_SERVICE_PORT: server.port };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sa-'));
  writeFileSync(join(dir, 'token'), `${kube.admin.token}\n`);
  writeFileSync(join(dir, 'ca.crt'), kube.caData);
  writeFileSync(join(dir, 'namespace'), 'flotilla-system');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('inClusterCredentials (real API server)', () => {
  it('reaches the API server with the mounted token and CA and knows its namespace', async () => {
    const { credentials, namespace } = inClusterCredentials({ serviceAccountDir: dir, env });
    expect(namespace).toBe('flotilla-system');
    expect(credentials).toEqual({ server: kube.server.replace(/\/$/, ''), caData: kube.caData, tokenFile: join(dir, 'token') });
    const conn = ClusterConnection.create(credentials);
    try {
      await expect(conn.request({ method: 'GET', path: '/version' })).resolves.toMatchObject({ gitVersion: kube.version });
    } finally {
      await conn.close();
    }
  });

  it('re-reads a rotated token once its refresh interval has passed, and at once after a 401', async () => {
    let now = 0;
    const conn = ClusterConnection.create(inClusterCredentials({ serviceAccountDir: dir, env }).credentials, { now: () => now, tokenRefreshMs: 60_000 });
    const version = () => conn.request<{ gitVersion: string }>({ method: 'GET', path: '/version' });
    try {
      await expect(version()).resolves.toMatchObject({ gitVersion: kube.version });
      writeFileSync(join(dir, 'token'), 'revoked');
      // within the interval the cached token is still used
      now = 59_000;
      await expect(version()).resolves.toMatchObject({ gitVersion: kube.version });
      now = 61_000;
      await expect(version()).rejects.toMatchObject({ statusCode: 401 });
      // the kubelet writes the new token; the 401 made the connection forget the old one
      writeFileSync(join(dir, 'token'), kube.admin.token);
      await expect(version()).resolves.toMatchObject({ gitVersion: kube.version });
    } finally {
      await conn.close();
    }
  });
});

describe('inClusterCredentials errors', () => {
  it('names the missing service env', () => {
    expect(() => inClusterCredentials({ serviceAccountDir: dir, env: {} })).toThrow(
      new InClusterConfigError('in-cluster config: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT not set (not running in a pod?)'),
    );
    expect(() => inClusterCredentials({ serviceAccountDir: dir, env: { ...env, KUBERNETES_SERVICE_PORT: 'https' } })).toThrow(/"https" is not a port number/);
  });

  it.each(['token', 'ca.crt', 'namespace'])('names a missing %s file', (file) => {
    rmSync(join(dir, file));
    expect(() => inClusterCredentials({ serviceAccountDir: dir, env })).toThrow(InClusterConfigError);
    expect(() => inClusterCredentials({ serviceAccountDir: dir, env })).toThrow(`${join(dir, file)} is missing`);
  });

  it('refuses an empty token and a CA that is not PEM', () => {
    writeFileSync(join(dir, 'token'), '\n');
    expect(() => inClusterCredentials({ serviceAccountDir: dir, env })).toThrow(`${join(dir, 'token')} is empty`);
    writeFileSync(join(dir, 'token'), 't');
    writeFileSync(join(dir, 'ca.crt'), 'garbage');
    expect(() => inClusterCredentials({ serviceAccountDir: dir, env })).toThrow(`${join(dir, 'ca.crt')} is not PEM`);
  });

  it('a token file removed after startup fails the request, naming the file', async () => {
    const conn = ClusterConnection.create(inClusterCredentials({ serviceAccountDir: dir, env }).credentials);
    rmSync(join(dir, 'token'));
    try {
      const err = await conn.request({ method: 'GET', path: '/version' }).catch((e: unknown) => e);
      expect(err).not.toBeInstanceOf(KubeApiError);
      expect((err as Error).message).toContain(`token file ${join(dir, 'token')} cannot be read`);
    } finally {
      await conn.close();
    }
  });
});

describe('inClusterServer', () => {
  it('brackets IPv6 hosts', () => {
    expect(inClusterServer('10.96.0.1', '443')).toBe('https://10.96.0.1:443');
    expect(inClusterServer('fd00::1', '443')).toBe('https://[fd00::1]:443');
    expect(inClusterServer('[fd00::1]', '443')).toBe('https://[fd00::1]:443');
  });
});
