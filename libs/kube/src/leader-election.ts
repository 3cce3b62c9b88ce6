// Leader election on a coordination.k8s.io/v1 Lease, with client-go's leaderelection
// semantics: a replica acquires the Lease when nobody holds it or when the holder's record
// has not changed for leaseDurationSeconds by this replica's own clock (so clock skew
// between replicas does not matter), renews it every retry period while leading, and gives
// leadership up when renewing has failed for renewDeadlineMs. Every write is a PUT on the
// resourceVersion last seen: a concurrent writer turns it into a 409 that is re-read.
import type { ClusterConnection } from './connection';
import { ConflictError, LeaderElectionError, NotFoundError, messageOf } from './errors';
import { formatMicroTime, LeaseLock, type Lease, type LeaseSpec } from './lease-lock';

export interface LeaderElectionTimings {
  /** how long others wait after the record last changed before taking over (written rounded up to whole seconds) */
  leaseDurationMs: number;
  /** how long the leader keeps trying to renew before it gives leadership up; below leaseDurationMs */
  renewDeadlineMs: number;
  /** pause between attempts, to acquire and to renew; below renewDeadlineMs */
  retryPeriodMs: number;
  /** acquire attempts wait retryPeriodMs × (1 + random × retryJitter), so replicas spread out */
  retryJitter: number;
}

/** client-go's defaults: 15 s lease, 10 s renew deadline, 2 s retry, jitter 1.2. */
export function defaultLeaderElectionTimings(): LeaderElectionTimings {
  return { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, retryJitter: 1.2 };
}

export interface LeaderElectorOptions extends Partial<LeaderElectionTimings> {
  /** every call goes through it (its deadlines, rate limit, and the view's signal) */
  connection: ClusterConnection;
  /** namespace and name of the Lease */
  namespace: string;
  name: string;
  /** this replica (e.g. the pod name); unique among the candidates */
  identity: string;
  /** on stop while leading, clear holderIdentity so another replica takes over at once (default true) */
  releaseOnStop?: boolean;
  /** monotonic clock in ms for lease expiry and the renew deadline (default performance.now); the times written into the Lease are wall-clock */
  now?: () => number;
  /** resolves after `ms` on the `now` clock, or at once when `signal` aborts */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** the Lease's I/O (default: a LeaseLock on connection, namespace and name) */
  lock?: LeaseLock;
  /**
   * Called when this replica becomes leader; `signal` aborts when leadership is lost or the
   * elector stops. A returned promise should settle soon after: on stop the Lease is
   * released only once it has (or renewDeadlineMs has passed), and after a loss the elector
   * campaigns again only once it has, so two leading callbacks never run at once.
   */
  onStartedLeading?: (signal: AbortSignal) => void | Promise<void>;
  /** called after leading ends (lost, or stopped and released) */
  onStoppedLeading?: () => void;
  /** called when the observed holder changes to a new non-empty identity (this replica's too) */
  onNewLeader?: (identity: string) => void;
  /** failed attempts (retried on the next retry period) and throwing callbacks */
  onError?: (err: LeaderElectionError) => void;
}

type Attempt = 'leading' | 'held-by-other' | 'failed';

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The spec fields that make a record: a change in any of them restarts the expiry count. */
function recordKey(spec: LeaseSpec | undefined): string {
  const s = spec ?? {};
  return JSON.stringify([s.holderIdentity ?? '', s.leaseDurationSeconds, s.acquireTime, s.renewTime, s.leaseTransitions]);
}

export class LeaderElector {
  readonly identity: string;
  readonly timings: LeaderElectionTimings;
  private readonly lock: LeaseLock;
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly leaseSeconds: number;
  private running = false;
  private leading = false;
  /** the Lease as last read or written (its resourceVersion is the base of the next write) */
  private observed?: Lease;
  private observedKey?: string;
  /** `now()` when the record last changed, by this replica's clock */
  private observedAt = 0;
  private reportedLeader = '';
  /** `now()` at the start of the last successful write while leading */
  private renewedAt = 0;

  constructor(private readonly options: LeaderElectorOptions) {
    const timings = { ...defaultLeaderElectionTimings(), ...definedOnly(options) };
    const subject = `Lease/${options.namespace}/${options.name}`;
    const bad = (message: string) => new LeaderElectionError(subject, 'configure', message);
    if (!options.namespace || !options.name) throw bad('leader election needs the Lease namespace and name');
    if (!options.identity) throw bad('leader election needs this replica identity');
    for (const key of ['leaseDurationMs', 'renewDeadlineMs', 'retryPeriodMs'] as const) {
      if (!Number.isFinite(timings[key]) || timings[key] <= 0) throw bad(`${key} must be a positive number, got ${timings[key]}`);
    }
    if (!(timings.retryJitter >= 0)) throw bad(`retryJitter must be zero or positive, got ${timings.retryJitter}`);
    if (timings.renewDeadlineMs >= timings.leaseDurationMs) {
      throw bad(`renewDeadlineMs (${timings.renewDeadlineMs}) must be below leaseDurationMs (${timings.leaseDurationMs}): the leader must give up before others take over`);
    }
    if (timings.retryPeriodMs >= timings.renewDeadlineMs) {
      throw bad(`retryPeriodMs (${timings.retryPeriodMs}) must be below renewDeadlineMs (${timings.renewDeadlineMs}) so a failed renew is retried`);
    }
    if (options.lock && (options.lock.namespace !== options.namespace || options.lock.name !== options.name)) {
      throw bad(`the lock addresses ${options.lock.subject}, not this Lease`);
    }
    this.identity = options.identity;
    this.timings = timings;
    this.lock = options.lock ?? new LeaseLock(options.connection, options.namespace, options.name);
    this.now = options.now ?? (() => performance.now());
    this.sleep = options.sleep ?? defaultSleep;
    // rounded up: others must never count a shorter lease than this replica's renew deadline assumes
    this.leaseSeconds = Math.ceil(timings.leaseDurationMs / 1000);
  }

  /** true while this replica leads (between onStartedLeading and the abort of its signal) */
  get isLeader(): boolean {
    return this.leading;
  }

  /** the holder in the record last observed ('' when released or not read yet) */
  get leader(): string {
    return this.observed?.spec?.holderIdentity ?? '';
  }

  /**
   * Campaigns until `signal` aborts: acquire, lead while renewing, and after a lost
   * leadership campaign again. On stop while leading, the Lease is released (unless
   * releaseOnStop is false). Resolves once stopped; never rejects for API errors.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.running) throw new LeaderElectionError(this.lock.subject, 'configure', `elector ${this.identity} is already running`);
    this.running = true;
    // the connection view's own signal (if any) stops the campaign as well
    const viewSignal = this.lock.connection.signal;
    const campaign = viewSignal ? AbortSignal.any([viewSignal, signal]) : signal;
    try {
      while (!campaign.aborted) {
        if (!(await this.acquire(campaign))) return;
        if ((await this.lead(campaign)) === 'stopped') return;
      }
    } finally {
      this.running = false;
    }
  }

  /** Tries until the Lease is ours (true) or the campaign stops (false). */
  private async acquire(signal: AbortSignal): Promise<boolean> {
    const { retryPeriodMs, retryJitter, renewDeadlineMs } = this.timings;
    for (;;) {
      if (signal.aborted) return false;
      const started = this.now();
      if ((await this.attempt(signal, renewDeadlineMs, 'acquire')) === 'leading') {
        this.renewedAt = started;
        return true;
      }
      await this.sleep(retryPeriodMs * (1 + Math.random() * retryJitter), signal);
    }
  }

  /** Leads until the renew deadline passes, another holder shows up, or the campaign stops. */
  private async lead(signal: AbortSignal): Promise<'lost' | 'stopped'> {
    const { retryPeriodMs, renewDeadlineMs } = this.timings;
    this.leading = true;
    const leadership = new AbortController();
    const work = this.startWork(leadership.signal);
    let outcome: 'lost' | 'stopped' = 'stopped';
    renewing: for (;;) {
      await this.sleep(retryPeriodMs, signal);
      for (;;) {
        if (signal.aborted) break renewing;
        const started = this.now();
        // counted from the start of the last write that succeeded: others count from when they saw it, later
        const remaining = this.renewedAt + renewDeadlineMs - started;
        if (remaining <= 0) {
          outcome = 'lost';
          break renewing;
        }
        const result = await this.attempt(signal, remaining, 'renew');
        if (result === 'leading') {
          this.renewedAt = started;
          break;
        }
        if (result === 'held-by-other') {
          // someone wrote over us: they lead now, waiting for our deadline would make two leaders
          outcome = 'lost';
          break renewing;
        }
        // retry within the deadline; wake at the deadline at the latest to give up on time
        await this.sleep(Math.min(retryPeriodMs, Math.max(0, this.renewedAt + renewDeadlineMs - this.now())), signal);
      }
    }
    this.leading = false;
    leadership.abort(new LeaderElectionError(this.lock.subject, 'renew', outcome === 'lost' ? `${this.identity} lost leadership` : `${this.identity} stopped`));
    if (outcome === 'stopped') {
      // the guarded work must have seen the abort before another replica may start it
      if ((await this.settlesWithin(work, renewDeadlineMs)) && this.options.releaseOnStop !== false) await this.release();
      this.call(() => this.options.onStoppedLeading?.());
      return outcome;
    }
    this.call(() => this.options.onStoppedLeading?.());
    await untilSettledOrAborted(work, signal);
    return outcome;
  }

  /**
   * One try to acquire or renew (client-go's tryAcquireOrRenew): the leader first writes on
   * top of its own last write; otherwise (or on a 409) read, create when missing, and write
   * only when the Lease is ours, released, or unchanged for its lease duration.
   */
  private async attempt(signal: AbortSignal, timeoutMs: number, action: 'acquire' | 'renew'): Promise<Attempt> {
    const call = { signal, timeoutMs: Math.min(timeoutMs, this.lock.connection.options.requestTimeoutMs) };
    const fail = (err: unknown): Attempt => {
      if (!signal.aborted) this.report(action, err);
      return 'failed';
    };
    if (this.leading && this.observed) {
      try {
        this.observe(await this.lock.update(this.observed, this.spec(this.observed.spec, true), call));
        return 'leading';
      } catch (err) {
        // a 409: someone else wrote; read what they wrote below, never overwrite it blindly
        if (!(err instanceof ConflictError)) return fail(err);
      }
    }
    let current: Lease;
    try {
      current = await this.lock.get(call);
    } catch (err) {
      if (!(err instanceof NotFoundError)) return fail(err);
      try {
        this.observe(await this.lock.create(this.spec(undefined, false), call));
        return 'leading';
      } catch (createErr) {
        // a 409 here: another replica created it first; read it on the next try
        return fail(createErr);
      }
    }
    this.observe(current);
    const holder = current.spec?.holderIdentity ?? '';
    const mine = holder === this.identity;
    if (holder && !mine && this.observedValid()) return 'held-by-other';
    try {
      this.observe(await this.lock.update(current, this.spec(current.spec, mine), call));
      return 'leading';
    } catch (err) {
      return fail(err);
    }
  }

  /** The record to write: a renewal keeps acquireTime and leaseTransitions, a new holder counts one more transition. */
  private spec(previous: LeaseSpec | undefined, renewal: boolean): LeaseSpec {
    const now = formatMicroTime(Date.now());
    const transitions = previous?.leaseTransitions ?? 0;
    return {
      holderIdentity: this.identity,
      leaseDurationSeconds: this.leaseSeconds,
      acquireTime: renewal ? (previous?.acquireTime ?? now) : now,
      renewTime: now,
      leaseTransitions: previous === undefined || renewal ? transitions : transitions + 1,
    };
  }

  /** Clears holderIdentity so another replica acquires on its next try; a 409 means one already did. */
  private async release(): Promise<void> {
    if (!this.observed || this.leader !== this.identity) return;
    const now = formatMicroTime(Date.now());
    const spec: LeaseSpec = {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: this.observed.spec?.leaseTransitions ?? 0,
    };
    try {
      this.observe(await this.lock.update(this.observed, spec, { timeoutMs: Math.min(this.timings.renewDeadlineMs, this.lock.connection.options.requestTimeoutMs) }));
    } catch (err) {
      if (!(err instanceof ConflictError)) this.report('release', err);
    }
  }

  /** Remembers the Lease; the expiry count restarts (on this replica's clock) only when the record changed. */
  private observe(lease: Lease): void {
    const key = recordKey(lease.spec);
    this.observed = lease;
    if (key !== this.observedKey) {
      this.observedKey = key;
      this.observedAt = this.now();
    }
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder && holder !== this.reportedLeader) {
      this.reportedLeader = holder;
      this.call(() => this.options.onNewLeader?.(holder));
    }
  }

  private observedValid(): boolean {
    const seconds = this.observed?.spec?.leaseDurationSeconds;
    // a record without a usable duration is given ours rather than none
    const durationMs = typeof seconds === 'number' && seconds > 0 ? seconds * 1000 : this.timings.leaseDurationMs;
    return this.observedAt + durationMs > this.now();
  }

  private startWork(signal: AbortSignal): Promise<void> {
    return Promise.resolve()
      .then(() => this.options.onStartedLeading?.(signal))
      .then(
        () => undefined,
        (err: unknown) => this.report('callback', err),
      );
  }

  private async settlesWithin(work: Promise<void>, ms: number): Promise<boolean> {
    const timer = new AbortController();
    const settled = await Promise.race([work.then(() => true), this.sleep(ms, timer.signal).then(() => false)]);
    timer.abort();
    return settled;
  }

  private call(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.report('callback', err);
    }
  }

  private report(action: LeaderElectionError['action'], err: unknown): void {
    try {
      const what = action === 'callback' ? 'a callback threw' : `could not ${action}`;
      this.options.onError?.(new LeaderElectionError(this.lock.subject, action, `${this.identity} ${what}: ${messageOf(err)}`, { cause: err }));
    } catch {
      // an error handler that throws must not stop the campaign
    }
  }
}

function untilSettledOrAborted(work: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  let onAbort = () => {};
  const aborted = new Promise<void>((resolve) => {
    onAbort = resolve;
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

function definedOnly(options: LeaderElectorOptions): Partial<LeaderElectionTimings> {
  const out: Partial<LeaderElectionTimings> = {};
  for (const key of ['leaseDurationMs', 'renewDeadlineMs', 'retryPeriodMs', 'retryJitter'] as const) {
    if (options[key] !== undefined) out[key] = options[key];
  }
  return out;
}
