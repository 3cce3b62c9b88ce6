// Registry clients shared by runs with the same credentials: bearer tokens
// and, through the Timoni generator, module trees are then reused across
// Targets instead of being fetched again by every run.
import { RegistryClient, type RegistryClientOptions } from '@flotilla/oci';
import type { ResolvedCredentials } from './registry-credentials';

export class RegistryClients {
  private readonly clients = new Map<string, RegistryClient>();

  constructor(
    /** clients kept; the least recently used goes first */
    readonly capacity = 64,
    private readonly options: Partial<Omit<RegistryClientOptions, 'credentials'>> = {},
  ) {}

  get(credentials: ResolvedCredentials): RegistryClient {
    let client = this.clients.get(credentials.fingerprint);
    if (client) {
      this.clients.delete(credentials.fingerprint);
    } else {
      // The fingerprint names the credentials to caches that check access per identity.
      client = new RegistryClient({ ...this.options, credentials: credentials.source, identity: credentials.fingerprint });
    }
    this.clients.set(credentials.fingerprint, client);
    while (this.clients.size > this.capacity) this.clients.delete(this.clients.keys().next().value!);
    return client;
  }

  get size(): number {
    return this.clients.size;
  }
}
