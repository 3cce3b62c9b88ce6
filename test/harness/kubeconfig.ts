import { writeFileSync } from 'node:fs';

/** How a kubeconfig's user authenticates: a bearer token or a client certificate (PEM). */
export type KubeconfigCredentials = { token: string } | { clientCertificateData: string; clientKeyData: string };

const b64 = (pem: string) => Buffer.from(pem).toString('base64');

/**
 * Writes a one-context kubeconfig (JSON, which every kubeconfig reader
 * accepts) for `server`, trusting only `caData`. Mode 0600: it holds a key.
 */
export function writeKubeconfig(path: string, name: string, server: string, caData: string, credentials: KubeconfigCredentials): void {
  const user =
    'token' in credentials
      ? { token: credentials.token }
      : { 'client-certificate-data': b64(credentials.clientCertificateData), 'client-key-data': b64(credentials.clientKeyData) };
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server, 'certificate-authority-data': b64(caData) } }],
    users: [{ name, user }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    'current-context': name,
  };
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
}
