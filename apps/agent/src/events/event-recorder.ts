// Sends Events in the background: a slow or refusing API server never holds
// back a reconcile, and at most `maxPending` wait (the rest are dropped and
// counted, as client-go's broadcaster does under pressure).
import type { ClusterConnection, KubeObject } from '@flotilla/kube';

export interface EventRecorderOptions {
  maxPending: number;
  onError(err: unknown, event: KubeObject): void;
}

export class EventRecorder {
  private pending = new Set<Promise<void>>();
  private droppedCount = 0;

  constructor(
    private readonly connection: ClusterConnection,
    private readonly options: EventRecorderOptions,
  ) {}

  record(event: KubeObject): void {
    if (this.pending.size >= this.options.maxPending) {
      this.droppedCount++;
      return;
    }
    const sent = this.connection
      .request({ method: 'POST', path: `/api/v1/namespaces/${encodeURIComponent(event.metadata.namespace ?? 'default')}/events`, body: event, subject: `Event/${event.metadata.namespace}/${event.metadata.name}` })
      .then(
        () => undefined,
        (err: unknown) => this.options.onError(err, event),
      );
    this.pending.add(sent);
    void sent.finally(() => this.pending.delete(sent));
  }

  get dropped(): number {
    return this.droppedCount;
  }

  /** Waits for the events already handed over (shutdown). */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }
}
