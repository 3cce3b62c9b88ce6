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

/** A report of one assignment that a run of this replica will store. */
interface Expectation {
  generation: number;
  /** a report was handed over: a second one is not this run's to store */
  answered: boolean;
  report: Promise<AwaitedReport>;
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
  /** reports runs of this replica wait for (or will), by Target id */
  private readonly expected = new Map<string, Expectation>();
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
   * Marks the report of assignment `generation` of the Target (or of a later
   * one) as the one a run of this replica stores, before the assignment goes
   * out: an agent may answer before the run starts waiting. Replaces the
   * expectation of an older assignment.
   */
  expectReport(targetId: string, generation: number): void {
    this.expectation(targetId, generation);
  }

  private expectation(targetId: string, generation: number): Expectation {
    const previous = this.expected.get(targetId);
    if (previous?.generation === generation) return previous;
    previous?.reject(new AgentGoneError('a newer assignment replaced this one'));
    let resolve!: (r: AwaitedReport) => void;
    let reject!: (err: Error) => void;
    const report = new Promise<AwaitedReport>((ok, fail) => ((resolve = ok), (reject = fail)));
    report.catch(() => undefined); // a run that never came to wait for it: nobody's unhandled rejection
    const expectation = { generation, answered: false, report, resolve, reject };
    this.expected.set(targetId, expectation);
    if (this.ended.signal.aborted) reject(this.goneBeforeReport());
    return expectation;
  }

  /** Whether the report of exactly this assignment is expected (its assignment went out already). */
  expects(targetId: string, generation: number): boolean {
    return this.expected.get(targetId)?.generation === generation;
  }

  /**
   * Waits for the agent's report of assignment `generation` (or a later
   * one) of the Target, expected from now on if it was not yet; rejects when
   * the stream ends, `signal` aborts or `timeoutMs` passes.
   */
  waitForReport(targetId: string, generation: number, signal: AbortSignal, timeoutMs: number): Promise<AwaitedReport> {
    const expectation = this.expectation(targetId, generation);
    return new Promise<AwaitedReport>((resolve, reject) => {
      const timer = setTimeout(() => expectation.reject(new AgentGoneError(`no report from the agent of cluster ${this.identity.clusterName} within ${timeoutMs} ms`)), timeoutMs);
      const abort = () => expectation.reject(this.goneBeforeReport());
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', abort);
        // taken: a later report of it is stored as a run of its own
        if (this.expected.get(targetId) === expectation) this.expected.delete(targetId);
      };
      expectation.report.then(
        (r) => (done(), resolve(r)),
        (err: Error) => (done(), reject(err)),
      );
      if (signal.aborted) return abort();
      signal.addEventListener('abort', abort, { once: true });
    });
  }

  /** True when a run of this replica takes the report (it stores it); false: nobody waits for it here. */
  offerReport(targetId: string, generation: number, report: AwaitedReport): boolean {
    const expectation = this.expected.get(targetId);
    if (!expectation || expectation.answered || generation < expectation.generation) return false;
    expectation.answered = true;
    expectation.resolve(report);
    return true;
  }

  /** Ends the stream (revocation, a newer stream of the same agent, shutdown, silence). */
  close(reason: string): void {
    if (this.ended.signal.aborted) return;
    this.ended.abort(new AgentGoneError(reason));
    for (const expectation of this.expected.values()) expectation.reject(this.goneBeforeReport());
    this.expected.clear();
    try {
      this.stream.end();
    } catch {
      // already gone
    }
  }

  private goneBeforeReport(): AgentGoneError {
    return new AgentGoneError(`the agent of cluster ${this.identity.clusterName} disconnected before it reported`);
  }
}
