import { CueEngineError, CueError, CueMemoryLimitError, CueTimeoutError } from './errors';
import type { CueEngineOptions } from './options';
import type { CueRunner, CueRunnerFactory } from './runner';
import { TenantScheduler, quarantineWorkers } from './tenant-scheduler';

interface Job {
  id: number;
  op: string;
  tenant: string;
  payload: unknown;
  timeoutMs: number;
  resolve(response: string): void;
  reject(err: CueError): void;
}

interface Slot {
  worker: CueRunner;
  ready: boolean;
  job?: Job;
  timer?: NodeJS.Timeout;
  memoryBytes: number;
}

export interface PoolStats {
  size: number;
  ready: number;
  busy: number;
  queued: number;
  /** Workers replaced after a timeout, memory cap, crash or recycling. */
  replaced: number;
  /** Milliseconds the slowest instance took to start (Go runtime init). */
  lastStartMs: number;
  /** Tenants quarantined now (a call of theirs hit the timeout or memory cap). */
  quarantinedTenants: number;
  /** Workers running calls of quarantined tenants. */
  quarantinedBusy: number;
}

/** What the pool does, for observers (specs, metrics). */
export type PoolEvent =
  | { type: 'dispatch'; id: number; op: string; tenant: string; quarantined: boolean; busy: number; quarantinedBusy: number }
  | { type: 'strike'; id: number; op: string; tenant: string; limit: 'timeout' | 'memory' };

/**
 * Test hook: a call with this op blocks its worker in Atomics.wait on the
 * Int32Array(SharedArrayBuffer) given as payload until cell 0 becomes
 * non-zero. The engine never sends it; specs reach it through the pool.
 */
export const TEST_BLOCK_OP = 'test.block';

/**
 * Workers (threads with a Go/wasm runtime or native helper processes, see
 * runner.ts) each owning one warm CUE instance. A call that times
 * out or breaks the memory cap costs its worker: it is terminated, the call
 * rejected with a typed error, and a fresh worker takes its place. Queued
 * calls are shared fairly between tenants (see tenant-scheduler.ts).
 */
export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly scheduler: TenantScheduler<Job>;
  private readonly observers = new Set<(e: PoolEvent) => void>();
  private nextId = 1;
  private closed = false;
  private replaced = 0;
  private lastStartMs = 0;
  private startFailures = 0;

  constructor(
    private readonly options: CueEngineOptions,
    private readonly runners: CueRunnerFactory,
  ) {
    this.scheduler = new TenantScheduler<Job>({ quarantineWorkers: quarantineWorkers(options.poolSize), quarantineMs: options.quarantineMs });
  }

  /** Starts every worker and resolves once all are warm. */
  async start(): Promise<void> {
    const all = Array.from({ length: this.options.poolSize }, () => this.spawn());
    await Promise.all(all);
  }

  /** Queues a call under `tenant` ('' for calls that name none). */
  call(op: string, payload: unknown, timeoutMs: number, tenant = ''): Promise<string> {
    if (this.closed) return Promise.reject(new CueEngineError(`${op}: the CUE engine is closed`));
    return new Promise<string>((resolve, reject) => {
      this.scheduler.push({ id: this.nextId++, op, tenant, payload, timeoutMs, resolve, reject });
      this.dispatch();
    });
  }

  /** Calls `listener` on every dispatch and strike; returns the unsubscribe. */
  observe(listener: (e: PoolEvent) => void): () => void {
    this.observers.add(listener);
    return () => this.observers.delete(listener);
  }

  isQuarantined(tenant: string): boolean {
    return this.scheduler.isQuarantined(tenant);
  }

  stats(): PoolStats {
    return {
      size: this.slots.length,
      ready: this.slots.filter((s) => s.ready).length,
      busy: this.slots.filter((s) => s.job).length,
      queued: this.scheduler.size,
      replaced: this.replaced,
      lastStartMs: this.lastStartMs,
      quarantinedTenants: this.scheduler.quarantinedTenants(),
      quarantinedBusy: this.scheduler.quarantinedRunning(this.running()),
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.scheduler.drain()) job.reject(new CueEngineError(`${job.op}: the CUE engine was closed`));
    await Promise.all(
      this.slots.splice(0).map((s) => {
        if (s.timer) clearTimeout(s.timer);
        s.job?.reject(new CueEngineError(`${s.job.op}: the CUE engine was closed`));
        return s.worker.terminate();
      }),
    );
  }

  private spawn(): Promise<void> {
    let resolveStart!: () => void;
    let rejectStart!: (e: Error) => void;
    const started = new Promise<void>((resolve, reject) => {
      resolveStart = resolve;
      rejectStart = reject;
    });
    const waiter = { resolve: resolveStart, reject: rejectStart };
    const slot: Slot = { worker: undefined as unknown as CueRunner, ready: false, memoryBytes: 0 };
    this.slots.push(slot);
    slot.worker = this.runners.spawn({
      ready: (info) => this.onReady(slot, info, waiter),
      result: (reply) => this.onResult(slot, reply),
      fatal: (failure) => this.onFatal(slot, failure, waiter),
    });
    return started;
  }

  private onReady(slot: Slot, info: { startMs: number; memoryBytes: number }, waiter: { resolve(): void }): void {
    slot.ready = true;
    // Idle workers do not keep the process alive; busy ones do (see dispatch).
    slot.worker.unref();
    slot.memoryBytes = info.memoryBytes;
    this.lastStartMs = info.startMs;
    this.startFailures = 0;
    waiter.resolve();
    this.dispatch();
  }

  private onResult(slot: Slot, m: { id: number; response: string; memoryBytes: number }): void {
    const job = slot.job;
    if (!job || job.id !== m.id) return;
    if (slot.timer) clearTimeout(slot.timer);
    slot.job = undefined;
    slot.worker.unref();
    slot.memoryBytes = m.memoryBytes;
    this.scheduler.clean(job);
    job.resolve(m.response);
    if (m.memoryBytes > this.options.recycleAboveBytes) this.replace(slot);
    else this.dispatch();
  }

  private onFatal(slot: Slot, f: { message: string; output: string; code?: string }, waiter: { reject(e: Error): void }): void {
    if (!this.slots.includes(slot)) return; // already replaced or closed
    const job = slot.job;
    slot.job = undefined;
    const detail = `${f.message}${f.output ? `: ${f.output.trim().split('\n').slice(0, 3).join(' | ')}` : ''}`;
    if (!job) {
      if (!slot.ready) waiter.reject(new CueEngineError(`starting a CUE worker failed: ${detail}`));
    } else if (f.code === 'ERR_WORKER_OUT_OF_MEMORY') {
      this.strike(job, 'memory');
      job.reject(new CueMemoryLimitError(job.op, this.options.workerHeapMb * 1048576, 'worker heap', { cause: new Error(detail) }));
    } else if (/out of memory/i.test(f.output) || /out of memory/i.test(f.message)) {
      this.strike(job, 'memory');
      job.reject(new CueMemoryLimitError(job.op, this.options.memoryLimitBytes, this.runners.memoryKind, { cause: new Error(detail) }));
    } else {
      job.reject(new CueEngineError(`${job.op}: the CUE engine crashed: ${detail}`));
    }
    this.replace(slot);
  }

  /** Terminates a slot's worker and starts a fresh one in its place. */
  private replace(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    if (slot.timer) clearTimeout(slot.timer);
    void slot.worker.terminate();
    if (this.closed) return;
    this.replaced++;
    if (!slot.ready && ++this.startFailures > 3) {
      for (const job of this.scheduler.drain()) job.reject(new CueEngineError(`${job.op}: CUE workers keep failing to start`));
      return;
    }
    this.spawn().catch(() => undefined);
  }

  private running(): Job[] {
    const jobs: Job[] = [];
    for (const s of this.slots) if (s.job) jobs.push(s.job);
    return jobs;
  }

  private strike(job: Job, limit: 'timeout' | 'memory'): void {
    this.scheduler.strike(job);
    this.emit({ type: 'strike', id: job.id, op: job.op, tenant: job.tenant, limit });
  }

  private emit(e: PoolEvent): void {
    for (const o of this.observers) o(e);
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.scheduler.size === 0) return;
      if (!slot.ready || slot.job) continue;
      const job = this.scheduler.next(this.running());
      if (!job) return; // only quarantined tenants wait, and they are at their share
      slot.job = job;
      slot.timer = setTimeout(() => {
        if (slot.job !== job) return;
        slot.job = undefined;
        this.strike(job, 'timeout');
        job.reject(new CueTimeoutError(job.op, job.timeoutMs));
        this.replace(slot);
      }, job.timeoutMs);
      slot.worker.ref();
      slot.worker.call(job.id, job.op, job.payload);
      if (this.observers.size > 0) {
        const running = this.running();
        this.emit({
          type: 'dispatch',
          id: job.id,
          op: job.op,
          tenant: job.tenant,
          quarantined: this.scheduler.isQuarantined(job.tenant),
          busy: running.length,
          quarantinedBusy: this.scheduler.quarantinedRunning(running),
        });
      }
    }
  }
}
