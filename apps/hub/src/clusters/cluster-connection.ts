import { InvalidInputError } from '../common/errors';
import { type ClusterAuth, type ClusterConnection, connectionFromKubeconfig, KubeconfigError, pemFrom } from '../kube/kubeconfig';
import type { ClusterCredentialsDto, EndpointDto } from './clusters.dto';

/** What is sealed for a push cluster: how to authenticate (the endpoint is not secret). */
export interface StoredClusterSecret {
  auth: ClusterAuth;
  context?: string;
}

/** Turns the API's endpoint + credentials into a connection and what to seal, or every problem found. */
export function resolveConnection(
  endpoint: EndpointDto | undefined,
  creds: ClusterCredentialsDto,
): { connection: ClusterConnection; kind: string; secret: StoredClusterSecret } {
  const problems: string[] = [];
  let fromKubeconfig: ClusterConnection | undefined;
  let context: string | undefined;
  if (creds.kubeconfig !== undefined) {
    try {
      ({ connection: fromKubeconfig, context } = connectionFromKubeconfig(creds.kubeconfig, creds.context));
    } catch (err) {
      if (!(err instanceof KubeconfigError)) throw err;
      problems.push(`credentials.${err.message}`);
    }
  }
  const ep = endpoint ? endpointFrom(endpoint, problems) : fromKubeconfig;
  let auth: ClusterAuth | undefined = fromKubeconfig?.auth;
  if (creds.token !== undefined) auth = { token: creds.token };
  if (creds.clientCertificateData !== undefined && creds.clientKeyData !== undefined) {
    const cert = pemFrom(creds.clientCertificateData);
    const key = pemFrom(creds.clientKeyData);
    if (!cert) problems.push('credentials.clientCertificateData: expected a PEM certificate or base64 of one');
    if (!key) problems.push('credentials.clientKeyData: expected a PEM key or base64 of one');
    auth = { clientCertificateData: cert, clientKeyData: key };
  }
  if (problems.length > 0 || !ep || !auth) throw new InvalidInputError(problems.length ? problems : ['endpoint: required']);
  const kind = creds.kubeconfig !== undefined ? 'kubeconfig' : 'token' in auth ? 'token' : 'clientCertificate';
  return {
    connection: { server: ep.server, caData: ep.caData, insecureSkipTLSVerify: ep.insecureSkipTLSVerify, auth },
    kind,
    secret: { auth, context },
  };
}

export function endpointFrom(e: EndpointDto, problems: string[]): Omit<ClusterConnection, 'auth'> {
  let caData: string | undefined;
  if (e.caData !== undefined) {
    caData = pemFrom(e.caData);
    if (!caData) problems.push('endpoint.caData: expected a PEM certificate or base64 of one');
  }
  return { server: e.server.replace(/\/+$/, ''), caData, insecureSkipTLSVerify: e.insecureSkipTLSVerify ?? false };
}
