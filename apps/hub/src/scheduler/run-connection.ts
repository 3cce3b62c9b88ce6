// A push run's connection to its cluster, opened by the hub for the run and
// lent to the event sink while the run goes on: the run's instance events
// reuse its sockets and discovery instead of a TLS connection of their own.
import { type ClusterConnection, DiscoveryCache, ObjectClient } from '@flotilla/kube';

export class RunConnection {
  /** the run's discovery, shared by the engine's views and the sink's client */
  readonly discovery: DiscoveryCache;
  /** the hub's own identity (not the Project's service account), for the sink */
  readonly client: ObjectClient;
  private holders = 1;

  /** Held once by its opener, who releases it when the run ends. */
  constructor(readonly connection: ClusterConnection) {
    this.discovery = new DiscoveryCache(connection);
    this.client = new ObjectClient(connection, this.discovery);
  }

  /** Keeps the connection open until the returned function is called (once; later calls do nothing). */
  hold(): () => void {
    if (this.holders === 0) throw new Error('the run connection is already closed');
    this.holders++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release();
    };
  }

  /** The opener's release: the connection closes once every holder has let go. */
  release(): void {
    if (this.holders === 0) return;
    if (--this.holders === 0) void this.connection.close().catch(() => undefined); // nothing is left to fail
  }

  /** Still open (someone holds it). */
  get open(): boolean {
    return this.holders > 0;
  }
}
