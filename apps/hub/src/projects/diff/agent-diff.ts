// The seam for agent-mode clusters: the hub holds no credentials for them,
// so their diff comes from the agent over its stream (agents/agent-diffs.ts).
import type { ProjectDiff } from '@flotilla/engine';
import type { ClusterEntity, ProjectEntity } from '../../database/entities';

export const AGENT_DIFFER = Symbol('AGENT_DIFFER');

export interface AgentDiffRequest {
  project: ProjectEntity;
  cluster: ClusterEntity;
  targetId: string;
  digest?: string;
  tag?: string;
  /** an uploaded archive, as given */
  archive?: Buffer;
  signal: AbortSignal;
}

/** The agent's diff; or why it was not asked (skipped); or why it could not answer (failed). */
export type AgentDiffOutcome = { diff: ProjectDiff } | { skipped: string } | { failed: string };

export interface AgentDiffer {
  diff(request: AgentDiffRequest): Promise<AgentDiffOutcome>;
}
