import type { ObjectClient } from '@flotilla/kube';
import { projectCredentialSource, pullSecretConfigs, pullSecretCredentialSource } from './registry-credentials';
import { CredentialsError } from './errors';

const config = (auths: Record<string, { auth?: string; username?: string; password?: string }>) => JSON.stringify({ auths });
const b64 = (s: string) => Buffer.from(s).toString('base64');

async function resolve(source: ReturnType<typeof projectCredentialSource>, registry: string) {
  return typeof source === 'function' ? source(registry) : source;
}

describe('registry credentials', () => {
  it('basic credentials and tokens of the Project go only to its source registry', async () => {
    const basic = projectCredentialSource({ kind: 'basic', username: 'u', password: 'p' }, 'reg.example:5000');
    expect(await resolve(basic, 'reg.example:5000')).toEqual({ kind: 'basic', username: 'u', password: 'p' });
    expect(await resolve(basic, 'any.example')).toEqual({ kind: 'anonymous' });
    expect(await resolve(basic, 'reg.example')).toEqual({ kind: 'anonymous' });
    const token = projectCredentialSource({ kind: 'token', token: 't' }, 'reg.example');
    expect(await resolve(token, 'reg.example')).toEqual({ kind: 'token', token: 't' });
    expect(await resolve(token, '127.0.0.1:5000')).toEqual({ kind: 'anonymous' });
  });

  it('a dockerconfigjson of the Project is matched per host', async () => {
    const src = projectCredentialSource({ kind: 'dockerconfigjson', config: config({ 'reg.example': { auth: b64('a:b') } }) }, 'reg.example');
    expect(await resolve(src, 'reg.example')).toEqual({ kind: 'basic', username: 'a', password: 'b' });
    expect(await resolve(src, 'other.example')).toEqual({ kind: 'anonymous' });
  });

  it('pull secrets: the first one with credentials for the host wins', async () => {
    const src = pullSecretCredentialSource([
      config({ 'one.example': { username: 'first', password: '1' } }),
      config({ 'one.example': { username: 'second', password: '2' }, 'two.example': { username: 'x', password: 'y' } }),
    ]);
    expect(await resolve(src, 'one.example')).toEqual({ kind: 'basic', username: 'first', password: '1' });
    expect(await resolve(src, 'two.example')).toEqual({ kind: 'basic', username: 'x', password: 'y' });
    expect(await resolve(src, 'three.example')).toEqual({ kind: 'anonymous' });
  });

  it('pull secrets of a service account the run already read: only the secrets are read', async () => {
    const reads: string[] = [];
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'pull', namespace: 'ns' }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64(config({ 'reg.example': { auth: b64('a:b') } })) } };
    const client = { getOptional: async (a: { kind: string; name: string }) => (reads.push(`${a.kind}/${a.name}`), a.kind === 'Secret' ? secret : undefined) } as unknown as ObjectClient;
    const sa = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa', namespace: 'ns' }, imagePullSecrets: [{ name: 'pull' }] };
    expect(await pullSecretConfigs(client, 'ns', 'sa', sa)).toHaveLength(1);
    expect(reads).toEqual(['Secret/pull']);
    // without it, the service account is read first
    reads.length = 0;
    expect(await pullSecretConfigs(client, 'ns', 'sa')).toEqual([]);
    expect(reads).toEqual(['ServiceAccount/sa']);
  });

  it('a malformed pull secret is a CredentialsError naming where it came from', () => {
    expect(() => pullSecretCredentialSource(['{not json'], 'ServiceAccount/ns/sa')).toThrow(CredentialsError);
    expect(() => pullSecretCredentialSource(['{not json'], 'ServiceAccount/ns/sa')).toThrow(/^ServiceAccount\/ns\/sa: /);
  });
});
