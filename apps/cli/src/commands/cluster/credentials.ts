// Endpoint and credentials from flags, as the hub's cluster API takes them.
import { readFileSync } from 'node:fs';
import { CliError, UsageError, messageOf } from '../../errors';
import { readKubeconfig } from './kubeconfig';

export interface ConnectionFlags {
  kubeconfig?: string;
  kubeContext?: string;
  server?: string;
  tokenFile?: string;
  certificateAuthority?: string;
  clientCertificate?: string;
  clientKey?: string;
  insecureSkipTlsVerify?: boolean;
}

function file(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${what} ${path}: ${messageOf(err)}`);
  }
}

/** `{endpoint, credentials}` for a push cluster, or {} when no connection flag is given. */
export function connectionBody(f: ConnectionFlags, env: NodeJS.ProcessEnv): { endpoint?: Record<string, unknown>; credentials?: Record<string, unknown>; server?: string } {
  if (f.kubeconfig) {
    if (f.server || f.tokenFile || f.clientCertificate || f.clientKey) throw new UsageError('--kubeconfig goes alone: not with --server, --token-file or client certificate flags');
    const k = readKubeconfig(f.kubeconfig, f.kubeContext);
    return { credentials: { kubeconfig: k.kubeconfig, context: k.context }, server: k.server };
  }
  if (!f.server) {
    if (f.tokenFile || f.clientCertificate || f.clientKey || f.certificateAuthority) throw new UsageError('credentials need --server (or give --kubeconfig)');
    return {};
  }
  const endpoint: Record<string, unknown> = { server: f.server };
  if (f.certificateAuthority) endpoint.caData = file(f.certificateAuthority, 'CA file');
  if (f.insecureSkipTlsVerify) endpoint.insecureSkipTLSVerify = true;
  let credentials: Record<string, unknown>;
  if (f.clientCertificate || f.clientKey) {
    if (!f.clientCertificate || !f.clientKey) throw new UsageError('--client-certificate and --client-key go together');
    credentials = { clientCertificateData: file(f.clientCertificate, 'client certificate'), clientKeyData: file(f.clientKey, 'client key') };
  } else {
    const token = f.tokenFile ? file(f.tokenFile, 'token file').trim() : env.FLOTILLA_CLUSTER_TOKEN;
    if (!token) throw new UsageError('--server needs credentials', 'give --token-file, --client-certificate with --client-key, or set FLOTILLA_CLUSTER_TOKEN');
    credentials = { token };
  }
  return { endpoint, credentials, server: f.server };
}

/** Adds the connection flags to a command. */
export function connectionOptions<T extends { option: (flags: string, description: string) => T }>(cmd: T): T {
  return cmd
    .option('--kubeconfig <file>', 'a kubeconfig; files it names are inlined')
    .option('--kube-context <name>', 'context of the kubeconfig (default: its current-context)')
    .option('--server <url>', 'API server URL (with --token-file or a client certificate)')
    .option('--token-file <file>', 'file holding a bearer token for the API server (or FLOTILLA_CLUSTER_TOKEN)')
    .option('--certificate-authority <file>', 'PEM file of the API server CA')
    .option('--client-certificate <file>', 'PEM client certificate')
    .option('--client-key <file>', 'PEM client key')
    .option('--insecure-skip-tls-verify', 'do not verify the API server certificate');
}
