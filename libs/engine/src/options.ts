// Knobs of a reconcile, with Timoni's defaults where it has one.
import { defaultApplyOptions, defaultWaitOptions, type ApplyOptions, type WaitOptions } from '@flotilla/kube';
import type { RegistryClientOptions } from '@flotilla/oci';

export interface ReconcileOptions {
  /** components reconciled at once (independent ones only) */
  concurrency: number;
  /** a component's limit when project.cue sets no `timeout` (Timoni: 5 m) */
  componentTimeoutMs: number;
  /** limit for deleting each instance that left the project, waiting for its objects to go */
  pruneTimeoutMs: number;
  /** act as the Project's service account (off only for an agent that already runs as it) */
  impersonate: boolean;
  /** take over instances another Project (or another bundle) owns */
  overwriteOwnership: boolean;
  apply: ApplyOptions;
  /** poll pacing of waits; the timeout is always what is left of the component's */
  wait: Pick<WaitOptions, 'intervalMs' | 'initialIntervalMs' | 'failFast'>;
  /** registry client settings (credentials are the engine's) */
  registry: Partial<Omit<RegistryClientOptions, 'credentials'>>;
  clock: () => Date;
}

export function defaultReconcileOptions(): ReconcileOptions {
  const wait = defaultWaitOptions();
  return {
    concurrency: 4,
    componentTimeoutMs: 5 * 60_000,
    pruneTimeoutMs: 5 * 60_000,
    impersonate: true,
    overwriteOwnership: false,
    apply: defaultApplyOptions(),
    wait: { intervalMs: wait.intervalMs, initialIntervalMs: wait.initialIntervalMs, failFast: wait.failFast },
    registry: {},
    clock: () => new Date(),
  };
}
