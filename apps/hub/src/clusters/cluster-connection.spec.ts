import { plainToInstance } from 'class-transformer';
import { InvalidInputError } from '../common/errors';
import { kubeconfigYaml } from '../../test/kubeconfig';
import { ClusterCredentialsDto } from './clusters.dto';
import { resolveConnection } from './cluster-connection';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';
const creds = (c: object) => plainToInstance(ClusterCredentialsDto, c);

describe('resolveConnection', () => {
  it('combines an endpoint with a token; the endpoint is normalised', () => {
    const r = resolveConnection({ server: 'https://k:6443/', caData: Buffer.from(PEM).toString('base64') }, creds({ token: 't' }));
    expect(r.kind).toBe('token');
    expect(r.credentials).toEqual({ server: 'https://k:6443', caData: `${PEM}\n`, insecureSkipTLSVerify: false, token: 't' });
    expect(r.secret).toEqual({ auth: { token: 't' }, context: undefined });
  });

  it('takes everything from a kubeconfig, or only the user when an endpoint is given', () => {
    const kubeconfig = kubeconfigYaml({ server: 'https://from-kc', token: 'kt', context: 'c1' });
    expect(resolveConnection(undefined, creds({ kubeconfig })).credentials.server).toBe('https://from-kc');
    const r = resolveConnection({ server: 'https://explicit' }, creds({ kubeconfig }));
    expect(r).toMatchObject({ kind: 'kubeconfig', credentials: { server: 'https://explicit', token: 'kt' }, secret: { auth: { token: 'kt' }, context: 'c1' } });
  });

  it('refuses a kubeconfig whose token could not be sent in a header', () => {
    for (const token of ['two words', 'line\nbreak', 'cr\r']) {
      const kubeconfig = kubeconfigYaml({ server: 'https://from-kc', token: JSON.stringify(token), context: 'c1' });
      expect(() => resolveConnection(undefined, creds({ kubeconfig }))).toThrow(/credentials.kubeconfig: the token of context "c1" must be visible ASCII/);
    }
  });

  it('lists every problem of certificates and CA at once', () => {
    let err: unknown;
    try {
      resolveConnection({ server: 'https://k', caData: 'x' }, creds({ clientCertificateData: 'a', clientKeyData: 'b' }));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidInputError);
    expect((err as InvalidInputError).problems).toEqual([
      'endpoint.caData: expected a PEM certificate or base64 of one',
      'credentials.clientCertificateData: expected a PEM certificate or base64 of one',
      'credentials.clientKeyData: expected a PEM key or base64 of one',
    ]);
  });

  it('names a broken kubeconfig', () => {
    expect(() => resolveConnection(undefined, creds({ kubeconfig: 'a: [' }))).toThrow(/credentials.kubeconfig: not valid YAML/);
  });

  it('never reads files a kubeconfig names on the hub', () => {
    const withFile = kubeconfigYaml({ server: 'https://k', token: 't' }).replace('    token: t', '    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token');
    expect(() => resolveConnection(undefined, creds({ kubeconfig: withFile }))).toThrow(InvalidInputError);
    expect(() => resolveConnection(undefined, creds({ kubeconfig: withFile }))).toThrow(/uses "tokenFile", which Flotilla cannot use/);
  });
});
