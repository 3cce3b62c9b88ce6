import type { DiffResult } from '@flotilla/agent-protocol';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { HUB_LOGGER } from '../logging/logging.module';
import { NotificationBus } from '../notify/notification-bus';
import type { AgentDiffer, AgentDiffOutcome, AgentDiffRequest } from '../projects/diff/agent-diff';
import { AgentDiffRelaysRepository } from './agent-diff-relays.repository';
import { AgentLinksRepository } from './agent-links.repository';
import type { AgentSession } from './agent-session';
import { AgentSessions } from './agent-sessions';
import { BadAgentDiff, parseAgentDiff } from './diff-check';

/** How long an answer may still come on the agent's next stream after the one asked ended. */
const RECONNECT_GRACE_MS = 10_000;
/** A relayed diff's own bound on the answering replica (the asker stops at its diff's deadline). */
const RELAYED_DEADLINE_MS = 120_000;
/** The asker looks for a relayed answer this often too, should a notice be lost. */
const RELAY_POLL_MS = 1_000;

interface Ask {
  targetId: string;
  digest?: string;
  tag?: string;
  archive?: Buffer;
  signal: AbortSignal;
}

interface Pending {
  clusterId: string;
  resolve(result: DiffResult): void;
}

/**
 * The fleet diff of agent clusters: a DryRunDiff over the agent's stream,
 * answered by the agent's own engine with its own credentials. An agent
 * connected to another replica is asked through that replica (the request
 * and answer in agent_diff_relays, notices through PostgreSQL). The caller's
 * signal (the diff's deadline) bounds the wait; only the asked cluster's
 * agent can answer a request.
 */
@Injectable()
export class AgentDiffs implements AgentDiffer {
  private readonly pending = new Map<string, Pending>();
  /** relayed requests this replica asked, woken by the answering replica's notice */
  private readonly relayed = new Map<string, () => void>();

  constructor(
    private readonly sessions: AgentSessions,
    private readonly links: AgentLinksRepository,
    private readonly relays: AgentDiffRelaysRepository,
    private readonly bus: NotificationBus,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
  ) {
    bus.on((n) => {
      if (n.topic === 'agent-diff') void this.answerRelayed(n.id, n.clusterId);
      else if (n.topic === 'agent-diff-answered') this.relayed.get(n.id)?.();
    });
  }

  async diff(request: AgentDiffRequest): Promise<AgentDiffOutcome> {
    const { cluster } = request;
    const session = this.sessions.get(cluster.id);
    let result: DiffResult;
    if (session) {
      result = await this.ask(session, request);
    } else {
      const why = await this.whyNotConnected(cluster.id, cluster.name);
      if (why) return { skipped: why };
      result = await this.relay(request);
    }
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

  private ask(session: AgentSession, q: Ask): Promise<DiffResult> {
    const requestId = randomUUID();
    const { clusterId, clusterName } = session.identity;
    return new Promise<DiffResult>((resolve, reject) => {
      let grace: NodeJS.Timeout | undefined;
      const done = (settle: () => void) => {
        clearTimeout(grace);
        this.pending.delete(requestId);
        q.signal.removeEventListener('abort', aborted);
        session.closed.removeEventListener('abort', closed);
        settle();
      };
      const aborted = () => done(() => reject(q.signal.reason));
      // a stream that ends mid-diff (a certificate renewal, a blip) may be followed by the agent's next, which carries the answer
      const closed = () => {
        grace = setTimeout(() => done(() => reject(new Error(`the agent of cluster ${clusterName} disconnected before it answered`))), RECONNECT_GRACE_MS).unref();
      };
      if (q.signal.aborted) return aborted();
      this.pending.set(requestId, { clusterId, resolve: (r) => done(() => resolve(r)) });
      q.signal.addEventListener('abort', aborted, { once: true });
      session.closed.addEventListener('abort', closed, { once: true });
      if (session.closed.aborted) closed();
      session.send({
        body: { $case: 'dryRunDiff', value: { requestId, targetId: q.targetId, digest: q.digest ?? '', tag: q.tag ?? '', artifact: q.archive ?? Buffer.alloc(0) } },
      });
    });
  }

  /** Asks through the replica that holds the agent's stream; waits for its notice (or finds the answer by looking). */
  private async relay(request: AgentDiffRequest): Promise<DiffResult> {
    const id = randomUUID();
    const source = { ...(request.digest ? { digest: request.digest } : {}), ...(request.tag ? { tag: request.tag } : {}) };
    await this.relays.create({ id, clusterId: request.cluster.id, targetId: request.targetId, source, artifact: request.archive ?? null });
    try {
      this.bus.publish({ topic: 'agent-diff', id, clusterId: request.cluster.id });
      for (;;) {
        await new Promise<void>((resolve, reject) => {
          const wake = () => {
            clearTimeout(timer);
            request.signal.removeEventListener('abort', aborted);
            this.relayed.delete(id);
            resolve();
          };
          const aborted = () => {
            wake();
            reject(request.signal.reason);
          };
          const timer = setTimeout(wake, RELAY_POLL_MS);
          if (request.signal.aborted) return aborted();
          this.relayed.set(id, wake);
          request.signal.addEventListener('abort', aborted, { once: true });
        });
        const answer = await this.relays.answerOf(id);
        if (answer) return { requestId: id, ...answer };
      }
    } finally {
      await this.relays.remove(id).catch(() => undefined);
    }
  }

  /** A relayed request for an agent this replica holds: ask it, store the answer, tell the asker. */
  private async answerRelayed(id: string, clusterId: string): Promise<void> {
    const session = this.sessions.get(clusterId);
    if (!session) return;
    try {
      const request = await this.relays.unanswered(id);
      if (!request || request.clusterId !== clusterId) return;
      const q = { targetId: request.targetId, ...request.source, ...(request.artifact ? { archive: request.artifact } : {}), signal: AbortSignal.timeout(RELAYED_DEADLINE_MS) };
      const result = await this.ask(session, q).catch((err: unknown) => ({ requestId: id, unsupported: false, diffJson: '', error: err instanceof Error ? err.message : String(err) }));
      await this.relays.answer(id, { unsupported: result.unsupported, diffJson: result.diffJson, error: result.error });
      this.bus.publish({ topic: 'agent-diff-answered', id });
    } catch (err) {
      this.logger.warn({ err: err instanceof Error ? err.message : String(err), clusterId }, 'relayed diff not answered');
    }
  }

  /** Why the agent cannot be asked at all; undefined when it is connected to another replica. */
  private async whyNotConnected(clusterId: string, name: string): Promise<string | undefined> {
    const state = (await this.links.states([clusterId])).get(clusterId);
    if (!state?.registered) return `the agent of cluster ${name} has not registered yet: install it with the manifest from GET /api/v1/clusters/${name}/agent/manifest (flotilla cluster install-agent ${name})`;
    if (!state.connected) return `the agent of cluster ${name} is disconnected${state.statusSince ? ` since ${state.statusSince}` : ''}: what would change there is known once it connects again`;
    return undefined;
  }
}
