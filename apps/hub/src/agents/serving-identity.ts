import { renewalDue } from '@flotilla/agent-protocol';
import { experimental, type ServerCredentials } from '@grpc/grpc-js';
import { hostname } from 'node:os';
import type { AgentServerConfig } from '../config/hub-config';
import type { CertificateAuthority } from './certificate-authority';

type Listener<T> = (update: T | null) => void;
type CaUpdate = { caCertificate: Buffer };
type IdentityUpdate = { certificate: Buffer; privateKey: Buffer };

// a replica reissues its own certificate two thirds in, without a restart
const SERVING_TTL_MS = 90 * 24 * 3600_000;

/**
 * This replica's TLS identity on the agents' port: a serving certificate it
 * issues itself from the agent CA, and that CA as the only one client
 * certificates may chain to. Handed to grpc-js as a certificate provider,
 * which (unlike createSsl) lets the server ask for a client certificate
 * without requiring one: Register is called before the agent has any, and
 * Connect refuses streams without a verified one.
 */
export class ServingIdentity {
  private readonly caListeners = new Set<Listener<CaUpdate>>();
  private readonly identityListeners = new Set<Listener<IdentityUpdate>>();
  private ca: CaUpdate | null = null;
  private identity: IdentityUpdate | null = null;
  private renewAt = 0;

  constructor(
    private readonly authority: CertificateAuthority,
    private readonly names: readonly string[],
  ) {}

  /** Issues a fresh serving certificate when none is there or the current one is due. */
  async refresh(now = Date.now()): Promise<void> {
    if (this.identity && now < this.renewAt) return;
    const issued = await this.authority.issueServing(this.names, SERVING_TTL_MS);
    this.renewAt = renewalDue(issued.pem).getTime();
    this.ca = { caCertificate: Buffer.from(this.authority.certPem) };
    this.identity = { certificate: Buffer.from(issued.pem), privateKey: Buffer.from(issued.keyPem) };
    for (const l of this.caListeners) l(this.ca);
    for (const l of this.identityListeners) l(this.identity);
  }

  credentials(): ServerCredentials {
    // grpc-js subscribes before it registers the server's own watcher: the current values come a tick later, or the server never sees them
    const provider = {
      addCaCertificateListener: (l: Listener<CaUpdate>) => {
        this.caListeners.add(l);
        queueMicrotask(() => this.ca && this.caListeners.has(l) && l(this.ca));
      },
      removeCaCertificateListener: (l: Listener<CaUpdate>) => void this.caListeners.delete(l),
      addIdentityCertificateListener: (l: Listener<IdentityUpdate>) => {
        this.identityListeners.add(l);
        queueMicrotask(() => this.identity && this.identityListeners.has(l) && l(this.identity));
      },
      removeIdentityCertificateListener: (l: Listener<IdentityUpdate>) => void this.identityListeners.delete(l),
    };
    // one provider for both roles; false: a client certificate is asked for, not required
    return experimental.createCertificateProviderServerCredentials(provider, provider, false);
  }
}

/** The names agents may dial this replica by: the public address's host, this host, and loopback. */
export function servingNames(config: AgentServerConfig): string[] {
  const names: string[] = [];
  if (config.publicAddress) names.push(config.publicAddress.replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1'));
  if (!['0.0.0.0', '::', ''].includes(config.host)) names.push(config.host);
  names.push(hostname(), 'localhost', '127.0.0.1', '::1');
  return [...new Set(names)];
}
