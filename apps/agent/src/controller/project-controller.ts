// Projects from a list + watch into a work queue, and a bounded set of
// workers running the reconciler on them. The watch keeps the latest copy of
// each Project (the informer's store); only changes that matter (spec,
// annotations, finalizers, deletion) wake a Project: its own status writes do not.
import { normaliseRepository } from '@flotilla/cdevents';
import { watchObjects, type KubeObject, type ObjectClient, type WatchEvent } from '@flotilla/kube';
import type { Logger } from '../logging/logger';
import { PROJECT_API_VERSION, PROJECT_KIND, projectKey, type ProjectResource } from '../project/project-resource';
import type { ProjectReconciler } from './project-reconciler';
import { WorkQueue, type WorkQueueObserver } from './work-queue';
import { runWorkers } from './worker-pool';

/** What the controller reports, for metrics. */
export interface ControllerObserver {
  queue: WorkQueueObserver;
  reconciled(result: 'success' | 'error' | 'requeue_after', durationMs: number): void;
  activeWorkers(n: number): void;
}

export interface ProjectControllerOptions {
  client: ObjectClient;
  reconciler: ProjectReconciler;
  concurrency: number;
  /** null: every namespace */
  namespace: string | null;
  log: Logger;
  observer: ControllerObserver;
}

function changedEnough(before: ProjectResource | undefined, after: ProjectResource): boolean {
  if (!before) return true;
  const b = before.metadata;
  const a = after.metadata;
  return (
    b.generation !== a.generation ||
    b.deletionTimestamp !== a.deletionTimestamp ||
    JSON.stringify(b.annotations ?? {}) !== JSON.stringify(a.annotations ?? {}) ||
    JSON.stringify(b.finalizers ?? []) !== JSON.stringify(a.finalizers ?? [])
  );
}

export class ProjectController {
  private readonly store = new Map<string, ProjectResource>();
  private queue: WorkQueue | undefined;
  private syncedOnce = false;
  private active = 0;

  constructor(private readonly options: ProjectControllerOptions) {}

  /** true once the first LIST has filled the store */
  get synced(): boolean {
    return this.syncedOnce;
  }

  /** Runs until `signal` aborts; workers finish the Project they hold first. */
  async run(signal: AbortSignal): Promise<void> {
    const { client, namespace, log, observer } = this.options;
    const queue = new WorkQueue({ observer: observer.queue });
    this.queue = queue;
    this.store.clear();
    this.syncedOnce = false;
    const watching = watchObjects(
      client,
      { apiVersion: PROJECT_API_VERSION, kind: PROJECT_KIND, ...(namespace ? { namespace } : {}) },
      {
        synced: (objects: KubeObject[]) => {
          const seen = new Set<string>();
          for (const o of objects as ProjectResource[]) {
            const key = projectKey(o);
            seen.add(key);
            this.store.set(key, o);
            queue.add(key);
          }
          // gone while the watch was down: the reconciler forgets them
          for (const key of [...this.store.keys()]) {
            if (!seen.has(key)) {
              this.store.delete(key);
              queue.add(key);
            }
          }
          if (!this.syncedOnce) log.info('projects listed', { count: objects.length });
          this.syncedOnce = true;
        },
        event: (e: WatchEvent) => {
          const project = e.object as ProjectResource;
          const key = projectKey(project);
          const before = this.store.get(key);
          if (e.type === 'DELETED') {
            this.store.delete(key);
            queue.add(key);
            return;
          }
          this.store.set(key, project);
          if (changedEnough(before, project)) queue.add(key);
        },
        error: (err: Error) => log.warn('project watch interrupted; resuming', { error: err.message }),
      },
      { signal },
    );
    const stop = () => queue.shutDown();
    signal.addEventListener('abort', stop, { once: true });
    const working = runWorkers(queue, this.options.concurrency, (key, workerSignal) => this.process(queue, key, workerSignal), signal, {
      onError: (err, key) => log.error('reconcile threw', { project: key, error: err instanceof Error ? err.message : String(err) }),
    });
    await Promise.all([watching, working]);
    signal.removeEventListener('abort', stop);
  }

  /** Keys (`namespace/name`) of the Projects whose source is `repository` (normalised, as libs/cdevents matches). */
  projectsWithRepository(repository: string): string[] {
    return [...this.store.entries()].filter(([, p]) => !p.metadata.deletionTimestamp && normaliseRepository(p.spec?.source?.repository ?? '') === repository).map(([key]) => key);
  }

  /** Makes the Project resolve its tag at its next reconcile, and queues that now. */
  pollNow(key: string): void {
    this.options.reconciler.pollNow(key);
    this.queue?.add(key);
  }

  private async process(queue: WorkQueue, key: string, signal: AbortSignal): Promise<void> {
    const { reconciler, log, observer } = this.options;
    const started = performance.now();
    observer.activeWorkers(++this.active);
    try {
      const cached = this.store.get(key);
      const outcome = await reconciler.reconcile(cached ? structuredClone(cached) : undefined, key, signal);
      const took = performance.now() - started;
      if (outcome.error) {
        log.warn('reconcile step failed; retrying', { project: key, error: outcome.error.message });
        observer.reconciled('error', took);
        queue.addRateLimited(key);
        return;
      }
      queue.forget(key);
      if (outcome.requeueAfterMs !== undefined) {
        observer.reconciled('requeue_after', took);
        queue.addAfter(key, outcome.requeueAfterMs);
      } else observer.reconciled('success', took);
    } finally {
      observer.activeWorkers(--this.active);
    }
  }
}
