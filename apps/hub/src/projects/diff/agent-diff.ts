// The seam for agent-mode clusters: the hub cannot reach them, so their diff
// has to come from the agent over its stream (the protocol reserves
// DryRunDiff for it). Until agents compute diffs, the default answers that the
// cluster was skipped, and why.
import type { ProjectDiff } from '@flotilla/engine';
import type { ClusterEntity, ProjectEntity } from '../../database/entities';

export const AGENT_DIFFER = Symbol('AGENT_DIFFER');

export interface AgentDiffRequest {
  project: ProjectEntity;
  cluster: ClusterEntity;
  digest?: string;
  tag?: string;
  /** an uploaded archive, as given */
  archive?: Buffer;
  signal: AbortSignal;
}

/** Either the agent's diff, or why there is none. */
export type AgentDiffOutcome = { diff: ProjectDiff } | { skipped: string };

export interface AgentDiffer {
  diff(request: AgentDiffRequest): Promise<AgentDiffOutcome>;
}

export const AGENT_DIFF_UNAVAILABLE =
  'agent-mode cluster: the hub holds no credentials for it, and its agent does not answer dry-run diffs yet, so what would change there is not shown';

/** The default until agents answer diffs over their stream. */
export class UnavailableAgentDiffer implements AgentDiffer {
  async diff(): Promise<AgentDiffOutcome> {
    return { skipped: AGENT_DIFF_UNAVAILABLE };
  }
}
