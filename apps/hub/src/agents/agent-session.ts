import type { ConnectRequest, ConnectResponse } from '@flotilla/agent-protocol';
import type { RunReport } from '@flotilla/engine';
import type { ServerDuplexStream } from '@grpc/grpc-js';
import type { AgentIdentity } from './agent-links.repository';

/** A report that ends a run the hub is waiting for. */
export interface AwaitedReport {
  report: RunReport;
  reportId: string;
}

/** The agent stream went away (or the run was aborted) before the report came. */
export class AgentGoneError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AgentGoneError';
  }
}

let nextSlot = 0;

interface Waiter {
  generation: number;
  resolve(r: AwaitedReport): void;
  reject(err: Error): void;
}

/**
 * One connected agent's stream on this replica: sends hub messages, and
 * hands the agent's run reports to the runs waiting for them. `closed`
 * aborts when the stream ends for any reason.
 */
export class AgentSession {
  private readonly ended = new AbortController();
  /** runs of this replica waiting for a report, by Target id */
  private readonly waiters = new Map<string, Waiter>();
  lastSeen = Date.now();
  readonly openedAt = Date.now();
  /** a number of its own, to spread the sessions' periodic work (heartbeats) evenly */
  readonly slot = nextSlot++;

  constructor(
    readonly identity: AgentIdentity,
    /** the fingerprint of the client certificate the stream was opened with: revoking it ends the stream */
    readonly fingerprint: string,
    private readonly stream: ServerDuplexStream<ConnectRequest, ConnectResponse>,
  ) {}

  get closed(): AbortSignal {
    return this.ended.signal;
  }

  send(message: ConnectResponse): void {
    if (!this.ended.signal.aborted) this.stream.write(message);
  }

  /**
   * Waits for the agent's report of assignment `generation` (or a later
   * one) of the Target; rejects when the stream ends, `signal` aborts or
   * `timeoutMs` passes.
   */
  waitForReport(targetId: string, generation: number, signal: AbortSignal, timeoutMs: number): Promise<AwaitedReport> {
    return new Promise<AwaitedReport>((resolve, reject) => {
      const timer = setTimeout(() => done(new AgentGoneError(`no report from the agent of cluster ${this.identity.clusterName} within ${timeoutMs} ms`)), timeoutMs);
      const abort = () => done(new AgentGoneError(`the agent of cluster ${this.identity.clusterName} disconnected before it reported`));
      const done = (err: Error | undefined, r?: AwaitedReport) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', abort);
        this.ended.signal.removeEventListener('abort', abort);
        if (this.waiters.get(targetId) === waiter) this.waiters.delete(targetId);
        if (err) reject(err);
        else resolve(r!);
      };
      const waiter: Waiter = { generation, resolve: (r) => done(undefined, r), reject: (e) => done(e) };
      this.waiters.get(targetId)?.reject(new AgentGoneError('a newer assignment replaced this one'));
      this.waiters.set(targetId, waiter);
      if (signal.aborted || this.ended.signal.aborted) return abort();
      signal.addEventListener('abort', abort, { once: true });
      this.ended.signal.addEventListener('abort', abort, { once: true });
    });
  }

  /** True when a waiting run took the report (it stores it); false: nobody waits for it here. */
  offerReport(targetId: string, generation: number, report: AwaitedReport): boolean {
    const waiter = this.waiters.get(targetId);
    if (!waiter || generation < waiter.generation) return false;
    waiter.resolve(report);
    return true;
  }

  /** Ends the stream (revocation, a newer stream of the same agent, shutdown, silence). */
  close(reason: string): void {
    if (this.ended.signal.aborted) return;
    this.ended.abort(new AgentGoneError(reason));
    try {
      this.stream.end();
    } catch {
      // already gone
    }
  }
}
