import { Worker } from 'node:worker_threads';
import { CueEngineError, CueError, CueMemoryLimitError, CueTimeoutError } from './errors';
import type { CueEngineOptions } from './options';
import { TenantScheduler, quarantineWorkers } from './tenant-scheduler';
import type { WasmModule } from './wasm-types';
import { cueWorkerMain, type WorkerCall, type WorkerInit, type WorkerReply } from './worker-main';

const WORKER_SOURCE = `(${cueWorkerMain.toString()})()`;

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
  worker: Worker;
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
 * Worker threads each owning one warm Go/wasm instance. A call that times
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
  private startWaiters: Array<{ resolve(): void; reject(e: Error): void }> = [];
  private startFailures = 0;

  constructor(
    private readonly options: CueEngineOptions,
    private readonly module: WasmModule,
    private readonly wasmExec: string,
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
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      resourceLimits: { maxOldGenerationSizeMb: this.options.workerHeapMb },
      stdout: false,
      stderr: false,
    });
    const slot: Slot = { worker, ready: false, memoryBytes: 0 };
    this.slots.push(slot);
    const started = new Promise<void>((resolve, reject) => this.startWaiters.push({ resolve, reject }));
    const waiter = this.startWaiters[this.startWaiters.length - 1];
    worker.on('message', (m: WorkerReply) => this.onMessage(slot, m, waiter));
    worker.on('error', (err: Error & { code?: string }) => this.onCrash(slot, err, waiter));
    worker.on('exit', (code) => this.onCrash(slot, new Error(`worker exited with code ${code}`), waiter));
    const gomemlimit = Math.floor(this.options.memoryLimitBytes * 0.8);
    const init: WorkerInit = { type: 'init', module: this.module, wasmExec: this.wasmExec, env: { GOMEMLIMIT: String(gomemlimit) } };
    worker.postMessage(init);
    return started;
  }

  private onMessage(slot: Slot, m: WorkerReply, waiter: { resolve(): void; reject(e: Error): void }): void {
    if (m.type === 'ready') {
      slot.ready = true;
      // Idle workers do not keep the process alive; busy ones do (see dispatch).
      slot.worker.unref();
      slot.memoryBytes = m.memoryBytes;
      this.lastStartMs = m.startMs;
      this.startFailures = 0;
      waiter.resolve();
      this.dispatch();
      return;
    }
    if (m.type === 'fatal') {
      const job = slot.job;
      const detail = `${m.message}${m.output ? `: ${m.output.trim().split('\n').slice(0, 3).join(' | ')}` : ''}`;
      if (!job) {
        waiter.reject(new CueEngineError(detail));
      } else if (/out of memory/i.test(m.output) || /out of memory/i.test(m.message)) {
        this.strike(job, 'memory');
        job.reject(new CueMemoryLimitError(job.op, this.options.memoryLimitBytes, 'wasm memory', { cause: new Error(detail) }));
      } else {
        job.reject(new CueEngineError(`${job.op}: the CUE engine crashed: ${detail}`));
      }
      slot.job = undefined;
      this.replace(slot);
      return;
    }
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

  private onCrash(slot: Slot, err: Error & { code?: string }, waiter: { reject(e: Error): void }): void {
    if (!this.slots.includes(slot)) return; // already replaced or closed
    const job = slot.job;
    slot.job = undefined;
    if (job) {
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        this.strike(job, 'memory');
        job.reject(new CueMemoryLimitError(job.op, this.options.workerHeapMb * 1048576, 'worker heap', { cause: err }));
      } else {
        job.reject(new CueEngineError(`${job.op}: the CUE worker failed: ${err.message}`, { cause: err }));
      }
    } else if (!slot.ready) {
      waiter.reject(new CueEngineError(`starting a CUE worker failed: ${err.message}`, { cause: err }));
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
      const msg: WorkerCall = { type: 'call', id: job.id, op: job.op, payload: job.payload };
      slot.worker.postMessage(msg);
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
