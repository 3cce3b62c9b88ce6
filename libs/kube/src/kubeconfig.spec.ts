import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConnectionConfigError, KubeconfigError } from './errors';
import { credentialsFromKubeconfig, pemFrom } from './kubeconfig';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';
const KEY = PEM.replace(/CERTIFICATE/g, 'PRIVATE KEY');
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** A one-context kubeconfig; `cluster` and `user` fields are merged in. */
function kubeconfig(cluster: Record<string, unknown>, user: Record<string, unknown>, current = 'dev'): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': current,
    contexts: [{ name: 'dev', context: { cluster: 'c', user: 'u' } }],
    clusters: [{ name: 'c', cluster: { server: 'https://k:6443', ...cluster } }],
    users: [{ name: 'u', user }],
  });
}

describe('credentialsFromKubeconfig', () => {
  it('reads server, CA and token of the current context (YAML)', () => {
    const yaml = [
      'apiVersion: v1',
      'current-context: dev',
      'clusters:',
      '- name: c',
      '  cluster:',
      '    server: https://k:6443',
      `    certificate-authority-data: ${b64(PEM)}`,
      'users:',
      '- name: u',
      '  user:',
      '    token: tok',
      'contexts:',
      '- name: dev',
      '  context: {cluster: c, user: u}',
    ].join('\n');
    const { credentials, context } = credentialsFromKubeconfig(yaml);
    expect(context).toBe('dev');
    expect(credentials).toEqual({ server: 'https://k:6443', caData: `${PEM}\n`, insecureSkipTLSVerify: false, token: 'tok' });
  });

  it('reads embedded client certificates and a named context from JSON', () => {
    const cfg = {
      'current-context': 'a',
      contexts: [
        { name: 'a', context: { cluster: 'ca', user: 'ua' } },
        { name: 'b', context: { cluster: 'cb', user: 'ub' } },
      ],
      clusters: [
        { name: 'ca', cluster: { server: 'https://a' } },
        { name: 'cb', cluster: { server: 'https://b', 'insecure-skip-tls-verify': true } },
      ],
      users: [
        { name: 'ua', user: { token: 'x' } },
        { name: 'ub', user: { 'client-certificate-data': b64(PEM), 'client-key-data': b64(KEY) } },
      ],
    };
    const { credentials } = credentialsFromKubeconfig(JSON.stringify(cfg), { context: 'b' });
    expect(credentials).toEqual({ server: 'https://b', caData: undefined, insecureSkipTLSVerify: true, clientCertData: `${PEM}\n`, clientKeyData: `${KEY}\n` });
  });

  it.each([
    ['not: [valid', /not valid YAML/],
    ['apiVersion: v1', /no context given and no current-context set/],
    [kubeconfig({}, { token: 't' }, 'other'), /context "other" is not defined/],
    [kubeconfig({ server: 'ftp://k' }, { token: 't' }), /has no http\(s\) server/],
    [kubeconfig({}, { exec: { command: 'aws' } }), /uses "exec", which Flotilla cannot use/],
    [kubeconfig({}, { tokenFile: '/var/run/token' }), /uses "tokenFile", which Flotilla cannot use \(files are only read for local use\)/],
    [kubeconfig({}, { 'client-certificate': '/c.crt', 'client-key': '/c.key' }), /uses "client-certificate"/],
    [kubeconfig({ 'certificate-authority': '/ca.crt' }, { token: 't' }), /refers to a CA file/],
    [kubeconfig({ 'certificate-authority-data': 'not pem' }, { token: 't' }), /certificate-authority-data is not a base64 PEM/],
    [kubeconfig({}, { 'client-certificate-data': b64(PEM) }), /neither a token nor client-certificate-data/],
  ])('refuses %#, saying why', (text, message) => {
    expect(() => credentialsFromKubeconfig(text)).toThrow(KubeconfigError);
    expect(() => credentialsFromKubeconfig(text)).toThrow(message);
  });

  it('is a ConnectionConfigError whose message starts with "kubeconfig:"', () => {
    const err = (() => {
      try {
        credentialsFromKubeconfig('apiVersion: v1');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConnectionConfigError);
    expect((err as Error).message).toBe('kubeconfig: no context given and no current-context set');
  });

  describe('with files allowed (local use)', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'kubeconfig-'));
      writeFileSync(join(dir, 'ca.crt'), PEM);
      writeFileSync(join(dir, 'client.crt'), PEM);
      writeFileSync(join(dir, 'client.key'), KEY);
      writeFileSync(join(dir, 'garbage'), 'hello');
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('reads CA and client certificate files, relative to baseDir', () => {
      const text = kubeconfig({ 'certificate-authority': 'ca.crt' }, { 'client-certificate': join(dir, 'client.crt'), 'client-key': 'client.key' });
      const { credentials } = credentialsFromKubeconfig(text, { allowFiles: { baseDir: dir } });
      expect(credentials).toEqual({ server: 'https://k:6443', caData: `${PEM}\n`, insecureSkipTLSVerify: false, clientCertData: `${PEM}\n`, clientKeyData: `${KEY}\n` });
    });

    it('keeps a token file as a path, for the connection to re-read as it rotates', () => {
      const { credentials } = credentialsFromKubeconfig(kubeconfig({}, { tokenFile: 'token' }), { allowFiles: { baseDir: dir } });
      expect(credentials.tokenFile).toBe(join(dir, 'token'));
      expect(credentials.token).toBeUndefined();
    });

    it('names a file that is missing or not PEM, and still refuses exec', () => {
      expect(() => credentialsFromKubeconfig(kubeconfig({ 'certificate-authority': 'nope.crt' }, { token: 't' }), { allowFiles: { baseDir: dir } })).toThrow(
        `kubeconfig: cluster "c": certificate-authority ${join(dir, 'nope.crt')} cannot be read`,
      );
      expect(() => credentialsFromKubeconfig(kubeconfig({ 'certificate-authority': 'garbage' }, { token: 't' }), { allowFiles: { baseDir: dir } })).toThrow(/garbage is not PEM/);
      expect(() => credentialsFromKubeconfig(kubeconfig({}, { exec: { command: 'aws' } }), { allowFiles: { baseDir: dir } })).toThrow(/uses "exec"/);
    });
  });
});

describe('pemFrom', () => {
  it('accepts PEM or base64 of PEM and nothing else', () => {
    expect(pemFrom(PEM)).toBe(`${PEM}\n`);
    expect(pemFrom(b64(PEM))).toBe(`${PEM}\n`);
    expect(pemFrom('hello')).toBe('');
  });
});
