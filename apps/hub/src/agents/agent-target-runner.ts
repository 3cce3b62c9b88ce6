import { buildRunReport, failedRunResult, UnexpectedRunError, type ProjectDiff, type RunReport } from '@flotilla/engine';
import type { TargetDiffInput, TargetRunHooks, TargetRunInput, TargetRunner } from '../scheduler/target-runner';
import type { AgentSessions } from './agent-sessions';
import { assignmentChange } from './assignment';

/** Which report id an agent's run report came with, so the hub stores a replayed one once. */
const reportIds = new WeakMap<RunReport, string>();
export function agentReportIdOf(report: RunReport): string | undefined {
  return reportIds.get(report);
}

/**
 * Runs a Target of an agent cluster: sends the agent the assignment the
 * scheduler decided (the digest the rollout gate chose; the lease epoch as
 * its generation) and returns the agent's own RunReport of it, which the
 * scheduler stores exactly as it stores a push run's. The scheduler only
 * claims Targets whose agent is connected to this replica; should the agent
 * go away meanwhile, the run's signal aborts and the run is abandoned.
 */
export class AgentTargetRunner implements TargetRunner {
  constructor(
    private readonly sessions: AgentSessions,
    private readonly runTimeoutMs: number,
  ) {}

  reconcile(input: TargetRunInput & { digest: string }, _hooks: TargetRunHooks): Promise<RunReport> {
    return this.dispatch(input, input.digest, false);
  }

  deleteInstances(input: TargetRunInput, _hooks: TargetRunHooks): Promise<RunReport> {
    return this.dispatch(input, input.digest ?? '', true);
  }

  private async dispatch(input: TargetRunInput, digest: string, deleting: boolean): Promise<RunReport> {
    try {
      const session = this.sessions.get(input.owner);
      if (!session) throw new Error(`the agent of cluster ${input.cluster.name} is not connected to this hub replica`);
      const { id, epoch } = input.target;
      // sent already when the scheduler sent its claim's assignments ahead (AgentSendAhead)
      const sent = session.expects(id, epoch);
      // what the agent holds is recorded with the run's start (the scheduler's), for the full set sent
      // when it reconnects; should that write fail, the run's signal ends this wait
      const waiting = session.waitForReport(id, epoch, input.signal, this.runTimeoutMs);
      waiting.catch(() => undefined); // should the send throw, the wait's end is nobody's unhandled rejection
      if (!sent) {
        session.send(
          assignmentChange({
            targetId: id,
            generation: epoch,
            project: input.project,
            cluster: input.cluster,
            digest,
            intervalSeconds: Math.round(input.schedule.intervalMs / 1000),
            suspend: false,
            delete: deleting,
            registryCredentials: input.registryCredentials,
          }),
        );
      }
      const { report, reportId } = await waiting;
      reportIds.set(report, reportId);
      return report;
    } catch (err) {
      const failed = failedRunResult({ project: input.project, cluster: input.cluster }, new UnexpectedRunError(err instanceof Error ? err.message : String(err), { cause: err }), new Date());
      return buildRunReport(failed, input.schedule, deleting ? 'delete' : 'reconcile');
    }
  }
}

/** Sends push clusters' Targets to the engine and agent clusters' to their agents. */
export class ModeRoutingRunner implements TargetRunner {
  constructor(
    private readonly push: TargetRunner,
    private readonly agent: TargetRunner,
  ) {
    if (push.diff) this.diff = (input) => push.diff!(input);
  }

  reconcile(input: TargetRunInput & { digest: string }, hooks: TargetRunHooks): Promise<RunReport> {
    return (input.cluster.mode === 'agent' ? this.agent : this.push).reconcile(input, hooks);
  }

  deleteInstances(input: TargetRunInput, hooks: TargetRunHooks): Promise<RunReport> {
    return (input.cluster.mode === 'agent' ? this.agent : this.push).deleteInstances(input, hooks);
  }

  /** Only push clusters: the fleet diff asks agents over their stream, not through a runner. */
  readonly diff?: (input: TargetDiffInput) => Promise<ProjectDiff>;

  async close(): Promise<void> {
    await Promise.all([this.push.close?.(), this.agent.close?.()]);
  }
}
