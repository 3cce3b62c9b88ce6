// A push run's use of its cluster's connection (PushConnections), lent to the
// event sink while the run goes on: the run's instance events reuse its
// discovery and its hold on the connection.
import { type ClusterConnection, DiscoveryCache, ObjectClient } from '@flotilla/kube';
import type { PushConnectionLease } from './push-connections';

export class RunConnection {
  /** the run's discovery, shared by the engine's views and the sink's client */
  readonly discovery: DiscoveryCache;
  /** the hub's own identity (not the Project's service account), for the sink */
  readonly client: ObjectClient;
  private holders = 1;

  /** the run's view of the cluster's connection: a rate limit of its own, as one Timoni process has */
  readonly connection: ClusterConnection;

  /** Held once by its opener, who releases it when the run ends. */
  constructor(private readonly lease: PushConnectionLease) {
    this.connection = lease.connection.withOwnRateLimit();
    this.discovery = new DiscoveryCache(this.connection);
    this.client = new ObjectClient(this.connection, this.discovery);
  }

  /** Keeps the lease until the returned function is called (once; later calls do nothing). */
  hold(): () => void {
    if (this.holders === 0) throw new Error('the run connection is already released');
    this.holders++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release();
    };
  }

  /** The opener's release: the lease goes back once every holder has let go. */
  release(): void {
    if (this.holders === 0) return;
    if (--this.holders === 0) this.lease.release();
  }

  /** Still held by someone. */
  get open(): boolean {
    return this.holders > 0;
  }
}
