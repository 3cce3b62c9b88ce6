import { kubeconfigYaml } from '../../test/kubeconfig';
import { connectionFromKubeconfig, KubeconfigError, pemFrom } from './kubeconfig';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';

describe('connectionFromKubeconfig', () => {
  it('reads server, CA and token of the current context', () => {
    const { connection, context } = connectionFromKubeconfig(kubeconfigYaml({ server: 'https://k:6443', caData: PEM, token: 'tok', context: 'dev' }));
    expect(context).toBe('dev');
    expect(connection).toEqual({ server: 'https://k:6443', caData: `${PEM}\n`, insecureSkipTLSVerify: false, auth: { token: 'tok' } });
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
        { name: 'ub', user: { 'client-certificate-data': Buffer.from(PEM).toString('base64'), 'client-key-data': Buffer.from(PEM.replace(/CERTIFICATE/g, 'PRIVATE KEY')).toString('base64') } },
      ],
    };
    const { connection } = connectionFromKubeconfig(JSON.stringify(cfg), 'b');
    expect(connection.server).toBe('https://b');
    expect(connection.insecureSkipTLSVerify).toBe(true);
    expect(connection.auth).toEqual({ clientCertificateData: `${PEM}\n`, clientKeyData: expect.stringContaining('PRIVATE KEY') });
  });

  it.each([
    ['not: [valid', /not valid YAML/],
    ['apiVersion: v1', /no context given and no current-context set/],
    [kubeconfigYaml({ server: 'https://k', token: 't' }).replace('current-context: test', 'current-context: other'), /context "other" is not defined/],
    [kubeconfigYaml({ server: 'ftp://k', token: 't' }), /has no http\(s\) server/],
    [kubeconfigYaml({ server: 'https://k', token: 't' }).replace('    token: t', '    exec:\n      command: aws'), /uses "exec", which the hub cannot use/],
    [kubeconfigYaml({ server: 'https://k', token: 't' }).replace('    token: t', '    tokenFile: /var/run/token'), /uses "tokenFile"/],
    [kubeconfigYaml({ server: 'https://k', token: 't' }).replace('    server: https://k', '    server: https://k\n    certificate-authority: /ca.crt'), /refers to a CA file/],
    [kubeconfigYaml({ server: 'https://k', caData: 'not pem', token: 't' }), /certificate-authority-data is not a base64 PEM/],
  ])('refuses %#, saying why', (text, message) => {
    expect(() => connectionFromKubeconfig(text)).toThrow(KubeconfigError);
    expect(() => connectionFromKubeconfig(text)).toThrow(message);
  });
});

describe('pemFrom', () => {
  it('accepts PEM or base64 of PEM and nothing else', () => {
    expect(pemFrom(PEM)).toBe(`${PEM}\n`);
    expect(pemFrom(Buffer.from(PEM).toString('base64'))).toBe(`${PEM}\n`);
    expect(pemFrom('hello')).toBe('');
  });
});
