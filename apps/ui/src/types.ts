// The API's response shapes the page reads (see /api/docs for all fields).

export type FleetState = 'Failed' | 'Stalled' | 'Stale' | 'Unhealthy' | 'Progressing' | 'Deleting' | 'Suspended' | 'Ready';
export type Role = 'viewer' | 'operator' | 'admin';

export interface Session {
  name: string;
  role: Role;
  /** a tenant member: its tenants and its role in each */
  tenants?: Record<string, 'viewer' | 'operator'>;
  /** when the token stops being accepted (absent: never) */
  expiresAt?: string;
  /** signed in through OpenID Connect */
  singleSignOn?: boolean;
}

export interface GroupSummary {
  group: string;
  clusters: number;
  unreachable: number;
  targets: Record<FleetState, number>;
}

export interface FleetSummary {
  clusters: number;
  projects: number;
  targets: Record<FleetState, number>;
  groups: GroupSummary[];
  states: FleetState[];
}

export interface MatrixRow {
  cluster: string;
  group: string;
  mode: 'push' | 'agent';
  reachable: boolean | null;
  lastCheckedAt: string | null;
  labels: Record<string, string>;
  cells: Record<string, { state: FleetState; revision: string | null }>;
}

export interface MatrixPage {
  projects: string[];
  items: MatrixRow[];
  total: number;
  limit: number;
  offset: number;
}

export interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastTransitionTime: string;
}

export interface Project {
  name: string;
  namespace: string;
  source: { repository: string; tag: string; path: string };
  rollout: { groups: string[] };
  interval: string;
  suspend: boolean;
  generation: number;
  status: { targets: number; ready: number; unhealthy: number; phases: Record<string, number>; deleting: boolean };
}

export interface InstanceReport {
  name: string;
  namespace: string;
  component: string;
  action: string;
  ready: boolean;
  durationMs: number;
  counts: { created: number; configured: number; unchanged: number; deleted: number; skipped: number };
  objects: string[];
  error?: { reason: string; message: string };
}

export interface Target {
  cluster: string;
  clusterGroup: string;
  phase: string;
  conditions: Condition[];
  generation: number;
  observedGeneration: number | null;
  lastAppliedRevision: string | null;
  components: Array<{ name: string; status: string; durationMs: number; instances: InstanceReport[]; error?: { reason: string; message: string } }>;
  nextRunAt: string | null;
  attempt: number;
}

export interface Run {
  id: string;
  trigger: string;
  revision: string | null;
  result: string;
  startedAt: string;
  finishedAt: string | null;
  durationMs: number | null;
  error: string | null;
}

export interface HubEvent {
  cluster: string | null;
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  time: string;
}

export interface Cluster {
  name: string;
  group: string;
  labels: Record<string, string>;
  mode: 'push' | 'agent';
  endpoint: { server: string } | null;
  status: { reachable: boolean | null; version: string | null; lastChecked: string | null; error: string | null; warnings: string[] };
  /** agent clusters: the agent's connection */
  agent: { connected: boolean; since: string | null; version: string | null; lastHeartbeat: string | null; registered: boolean } | null;
  targets: number;
}

export interface Page<T> {
  items: T[];
  total?: number;
}

export interface AuditEntry {
  id: string;
  at: string;
  actor: { kind: 'token' | 'oidc' | 'anonymous'; id: string; name: string; email: string | null };
  tenant: string | null;
  action: string;
  object: string | null;
  outcome: number;
  requestId: string;
  sourceAddress: string | null;
}

export interface AuditPage {
  items: AuditEntry[];
  limit: number;
  continue: string | null;
}

export type WaveState = 'waiting' | 'awaitingApproval' | 'progressing' | 'soaking' | 'done' | 'failed' | 'rolledBack';

/** `GET /api/v1/projects/{name}/rollout`: one wave of the current revision's rollout. */
export interface WaveView {
  index: number;
  groups: string[];
  state: WaveState;
  since?: string;
  soakUntil?: string;
  counts: { total: number; pending: number; progressing: number; healthy: number; failed: number };
  failureBudget: number;
  batchSize: number | null;
  message?: string;
  /** outside the wave's own windows: which one says so */
  windowClosed?: string;
}

export interface RolloutAction {
  action: 'approve' | 'hold' | 'retry' | 'rollback';
  revision: string;
  wave?: number;
  by: string;
  at: string;
}

export interface RolloutView {
  project: string;
  revision: string | null;
  onFailure: string;
  waves: WaveView[];
  onHold: boolean;
  windowClosed?: string;
  rolledBack?: { revision: string; wave: number; by: string; at: string };
  actions: RolloutAction[];
}
