// The hub's connections to its push clusters, kept open between uses: a
// cluster's runs and its instance events reuse one pool of sockets instead of
// a TLS handshake (on the hub and on the cluster's API server) for each run.
// A connection is keyed by the credentials it was opened with, so new
// credentials or a new endpoint never reuse the old one; an unused one closes
// after a while, and only so many unused ones stay open.
import { createHash } from 'node:crypto';
import type { ClusterConnection, ClusterCredentials } from '@flotilla/kube';

/** How long a connection nobody holds stays open. */
export const PUSH_CONNECTION_IDLE_MS = 60_000;
/** Unused connections kept at most; the least recently used closes first. */
export const MAX_IDLE_PUSH_CONNECTIONS = 256;

/** One use of a cluster's connection; `release` once done (later calls do nothing). */
export interface PushConnectionLease {
  connection: ClusterConnection;
  release(): void;
}

interface Entry {
  clusterId: string;
  fingerprint: string;
  connection: ClusterConnection;
  holders: number;
  /** set while nobody holds it */
  idle: NodeJS.Timeout | undefined;
  /** replaced by newer credentials or closed: closes when the last holder lets go */
  retired: boolean;
}

export interface PushConnectionsOptions {
  idleMs: number;
  maxIdle: number;
}

export class PushConnections {
  private readonly entries = new Map<string, Entry>();
  /** unused entries, oldest first (a Map keeps insertion order) */
  private readonly unused = new Map<Entry, true>();
  private closed = false;

  constructor(
    /** opens a connection for these credentials (egress policy and metrics already bound) */
    private readonly open: (credentials: ClusterCredentials) => ClusterConnection,
    private readonly options: PushConnectionsOptions = { idleMs: PUSH_CONNECTION_IDLE_MS, maxIdle: MAX_IDLE_PUSH_CONNECTIONS },
  ) {}

  /** The cluster's connection for `credentials`, opened if it has none for them. */
  lease(clusterId: string, credentials: ClusterCredentials): PushConnectionLease {
    // once closed (the hub stopping), what still runs gets a connection that closes with its release
    if (this.closed) return this.hand({ clusterId, fingerprint: '', connection: this.open(credentials), holders: 0, idle: undefined, retired: true });
    const fingerprint = fingerprintOf(credentials);
    let entry = this.entries.get(clusterId);
    if (entry && entry.fingerprint !== fingerprint) {
      void this.retire(entry);
      entry = undefined;
    }
    if (!entry) {
      entry = { clusterId, fingerprint, connection: this.open(credentials), holders: 0, idle: undefined, retired: false };
      this.entries.set(clusterId, entry);
    }
    return this.hand(entry);
  }

  private hand(held: Entry): PushConnectionLease {
    this.take(held);
    let released = false;
    return {
      connection: held.connection,
      release: () => {
        if (released) return;
        released = true;
        this.give(held);
      },
    };
  }

  /** Connections kept for reuse, held or not (tests). */
  get size(): number {
    return this.entries.size;
  }

  /** Closes every connection (held ones as their holders let go) and keeps none from now on. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.entries.values()].map((e) => this.retire(e)));
  }

  onApplicationShutdown(): Promise<void> {
    return this.close();
  }

  private take(entry: Entry): void {
    entry.holders++;
    clearTimeout(entry.idle);
    entry.idle = undefined;
    this.unused.delete(entry);
  }

  private give(entry: Entry): void {
    if (--entry.holders > 0) return;
    if (entry.retired) {
      void closeQuietly(entry.connection);
      return;
    }
    entry.idle = setTimeout(() => void this.retire(entry), this.options.idleMs).unref();
    this.unused.set(entry, true);
    while (this.unused.size > this.options.maxIdle) {
      const [oldest] = this.unused.keys();
      void this.retire(oldest!);
    }
  }

  /** Takes the entry out of use; closes it now if nobody holds it. */
  private retire(entry: Entry): Promise<void> {
    if (entry.retired) return Promise.resolve();
    entry.retired = true;
    clearTimeout(entry.idle);
    this.unused.delete(entry);
    if (this.entries.get(entry.clusterId) === entry) this.entries.delete(entry.clusterId);
    return entry.holders === 0 ? closeQuietly(entry.connection) : Promise.resolve();
  }
}

/** Nothing is left to fail when a connection nobody uses closes. */
function closeQuietly(connection: ClusterConnection): Promise<void> {
  return connection.close().catch(() => undefined);
}

/** Everything that decides where the connection goes and as whom; kept only as a digest. */
function fingerprintOf(c: ClusterCredentials): string {
  const fields = [c.server, c.caData, c.token, c.tokenFile, c.clientCertData, c.clientKeyData, c.insecureSkipTLSVerify ? 'insecure' : 'verify'];
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}
