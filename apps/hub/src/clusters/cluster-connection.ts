import { type ClusterCredentials, credentialsFromKubeconfig, KubeconfigError, pemFrom } from '@flotilla/kube';
import { InvalidInputError } from '../common/errors';
import { HEADER_TOKEN } from '../common/validators';
import type { ClusterCredentialsDto, EndpointDto } from './clusters.dto';
import { trimTrailingSlashes } from '@flotilla/oci';

/** How the hub authenticates to a push cluster, as sealed (a stored format: keep it stable). */
export type StoredClusterAuth = { token: string } | { clientCertificateData: string; clientKeyData: string };

/** What is sealed for a push cluster: how to authenticate (the endpoint is not secret). */
export interface StoredClusterSecret {
  auth: StoredClusterAuth;
  context?: string;
}

/** The endpoint part of credentials (what the cluster row stores in the clear). */
export type ClusterEndpoint = Pick<ClusterCredentials, 'server' | 'caData' | 'insecureSkipTLSVerify'>;

/** Credentials for `endpoint` authenticating with a sealed `auth`. */
export function credentialsWith(endpoint: ClusterEndpoint, auth: StoredClusterAuth): ClusterCredentials {
  return {
    server: endpoint.server,
    caData: endpoint.caData,
    insecureSkipTLSVerify: endpoint.insecureSkipTLSVerify ?? false,
    ...('token' in auth ? { token: auth.token } : { clientCertData: auth.clientCertificateData, clientKeyData: auth.clientKeyData }),
  };
}

/** The auth part of self-contained credentials (a kubeconfig's user). */
function storedAuthOf(c: ClusterCredentials): StoredClusterAuth | undefined {
  if (c.token) return { token: c.token };
  if (c.clientCertData && c.clientKeyData) return { clientCertificateData: c.clientCertData, clientKeyData: c.clientKeyData };
  return undefined;
}

/** Turns the API's endpoint + credentials into credentials and what to seal, or every problem found. */
export function resolveConnection(
  endpoint: EndpointDto | undefined,
  creds: ClusterCredentialsDto,
): { credentials: ClusterCredentials; kind: string; secret: StoredClusterSecret } {
  const problems: string[] = [];
  let fromKubeconfig: ClusterCredentials | undefined;
  let context: string | undefined;
  if (creds.kubeconfig !== undefined) {
    try {
      // files are never read here: the hub's disk is not its API users' to name
      ({ credentials: fromKubeconfig, context } = credentialsFromKubeconfig(creds.kubeconfig, { context: creds.context }));
    } catch (err) {
      if (!(err instanceof KubeconfigError)) throw err;
      problems.push(`credentials.${err.message}`);
    }
  }
  // the same rule as credentials.token: it goes into an Authorization header as it is
  if (fromKubeconfig?.token !== undefined && !HEADER_TOKEN.test(fromKubeconfig.token)) {
    problems.push(`credentials.kubeconfig: the token of context "${context ?? 'current-context'}" must be visible ASCII without spaces or line breaks`);
  }
  const ep = endpoint ? endpointFrom(endpoint, problems) : fromKubeconfig;
  let auth: StoredClusterAuth | undefined = fromKubeconfig ? storedAuthOf(fromKubeconfig) : undefined;
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
  return { credentials: credentialsWith(ep, auth), kind, secret: { auth, context } };
}

export function endpointFrom(e: EndpointDto, problems: string[]): ClusterEndpoint {
  let caData: string | undefined;
  if (e.caData !== undefined) {
    caData = pemFrom(e.caData);
    if (!caData) problems.push('endpoint.caData: expected a PEM certificate or base64 of one');
  }
  return { server: trimTrailingSlashes(e.server), caData, insecureSkipTLSVerify: e.insecureSkipTLSVerify ?? false };
}
