import type { ConnectRequest, ConnectResponse } from '@flotilla/agent-protocol';
import type { ServerDuplexStream } from '@grpc/grpc-js';
import type { AgentIdentity } from './agent-links.repository';

/** Why a stream ended (revocation, a newer stream of the same agent, shutdown, silence). */
export class AgentGoneError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AgentGoneError';
  }
}

let nextSlot = 0;

/**
 * One connected agent's stream on this replica: sends hub messages.
 * `closed` aborts when the stream ends for any reason.
 */
export class AgentSession {
  private readonly ended = new AbortController();
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
