import type { DiffResult } from '@flotilla/agent-protocol';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { HUB_LOGGER } from '../logging/logging.module';
import type { AgentDiffer, AgentDiffOutcome, AgentDiffRequest } from '../projects/diff/agent-diff';
import { AgentLinksRepository } from './agent-links.repository';
import type { AgentSession } from './agent-session';
import { AgentSessions } from './agent-sessions';
import { BadAgentDiff, parseAgentDiff } from './diff-check';

/** How long an answer may still come on the agent's next stream after the one asked ended. */
const RECONNECT_GRACE_MS = 10_000;

interface Pending {
  clusterId: string;
  resolve(result: DiffResult): void;
}

/**
 * The fleet diff of agent clusters: a DryRunDiff over the agent's stream,
 * answered by the agent's own engine with its own credentials. The caller's
 * signal (the diff's deadline) bounds the wait; only the asked cluster's
 * agent can answer a request.
 */
@Injectable()
export class AgentDiffs implements AgentDiffer {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly sessions: AgentSessions,
    private readonly links: AgentLinksRepository,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
  ) {}

  async diff(request: AgentDiffRequest): Promise<AgentDiffOutcome> {
    const { cluster } = request;
    const session = this.sessions.get(cluster.id);
    if (!session) return { skipped: await this.whyNoSession(cluster.id, cluster.name) };
    const result = await this.ask(session, request);
    if (result.unsupported) return { skipped: `the agent of cluster ${cluster.name} is a version that does not answer dry-run diffs: upgrade it to see what would change there` };
    if (result.error) return { failed: `the agent of cluster ${cluster.name}: ${result.error}` };
    try {
      return { diff: parseAgentDiff(result.diffJson) };
    } catch (err) {
      if (err instanceof BadAgentDiff) return { failed: `${err.message} (cluster ${cluster.name})` };
      throw err;
    }
  }

  /** An agent's answer; one for a request of another cluster, or of nobody (late, after the deadline), is dropped. */
  answered(clusterId: string, result: DiffResult): void {
    const pending = this.pending.get(result.requestId);
    if (!pending) return;
    if (pending.clusterId !== clusterId) {
      this.logger.warn({ clusterId, requestId: result.requestId.slice(0, 64) }, 'a diff answer for another cluster\'s request dropped');
      return;
    }
    pending.resolve(result);
  }

  private ask(session: AgentSession, request: AgentDiffRequest): Promise<DiffResult> {
    const requestId = randomUUID();
    return new Promise<DiffResult>((resolve, reject) => {
      let grace: NodeJS.Timeout | undefined;
      const done = (settle: () => void) => {
        clearTimeout(grace);
        this.pending.delete(requestId);
        request.signal.removeEventListener('abort', aborted);
        session.closed.removeEventListener('abort', closed);
        settle();
      };
      const aborted = () => done(() => reject(request.signal.reason));
      // a stream that ends mid-diff (a certificate renewal, a blip) may be followed by the agent's next, which carries the answer
      const closed = () => {
        grace = setTimeout(() => done(() => reject(new Error(`the agent of cluster ${request.cluster.name} disconnected before it answered`))), RECONNECT_GRACE_MS).unref();
      };
      if (request.signal.aborted) return aborted();
      this.pending.set(requestId, { clusterId: request.cluster.id, resolve: (r) => done(() => resolve(r)) });
      request.signal.addEventListener('abort', aborted, { once: true });
      session.closed.addEventListener('abort', closed, { once: true });
      if (session.closed.aborted) closed();
      session.send({
        body: {
          $case: 'dryRunDiff',
          value: { requestId, targetId: request.targetId, digest: request.digest ?? '', tag: request.tag ?? '', artifact: request.archive ?? Buffer.alloc(0) },
        },
      });
    });
  }

  private async whyNoSession(clusterId: string, name: string): Promise<string> {
    const state = (await this.links.states([clusterId])).get(clusterId);
    if (!state?.registered) return `the agent of cluster ${name} has not registered yet: install it with the cluster's agent manifest`;
    if (!state.connected) return `the agent of cluster ${name} is disconnected${state.statusSince ? ` since ${state.statusSince.toISOString()}` : ''}: what would change there is known once it connects again`;
    return `the agent of cluster ${name} is connected to another hub replica`;
  }
}
