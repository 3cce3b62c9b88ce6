// The parts of the hub's response bodies the CLI reads (see /api/docs-json).

export interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastTransitionTime: string;
}

export interface Cluster {
  name: string;
  group: string;
  labels: Record<string, string>;
  mode: 'push' | 'agent';
  endpoint: { server: string; insecureSkipTLSVerify: boolean; hasCaData: boolean } | null;
  credentials: { kind: string; fingerprint: string } | null;
  status: { reachable: boolean | null; version: string | null; lastChecked: string | null; error: string | null; warnings: string[] };
  /** agent clusters: the agent's connection */
  agent?: {
    connected: boolean;
    since: string | null;
    version: string | null;
    /** within the hub's version skew policy (absent from hubs before it) */
    supported?: boolean;
    skew?: string;
    lastHeartbeat: string | null;
    registered: boolean;
  } | null;
  targets: number;
  createdAt: string;
  updatedAt: string;
}

export interface Project {
  name: string;
  tenant: string;
  namespace: string;
  source: { repository: string; tag: string; path: string };
  serviceAccountName: string;
  targets: Record<string, unknown>;
  rollout: Record<string, unknown>;
  interval: string;
  suspend: boolean;
  annotations: Record<string, string>;
  cdeventsSink: string | null;
  /** the secret header's name only */
  cdeventsSinkHeader: string | null;
  /** the chat webhook's scheme and host only */
  notificationWebhook: string | null;
  targetRemoval: string;
  overwriteOwnership: boolean;
  bootstrap: { serviceAccountRole: string } | null;
  generation: number;
  /** `unhealthy`: of the Ready Targets, those not healthy (absent from hubs before it) */
  status: { targets: number; ready: number; unhealthy?: number; phases: Record<string, number>; deleting: boolean };
  createdAt: string;
  updatedAt: string;
}

export interface InstanceReport {
  name: string;
  namespace: string;
  component: string;
  action: string;
  ready: boolean;
  durationMs: number;
  counts: { created: number; configured: number; unchanged: number; deleted: number; skipped: number };
  module?: { name: string; version: string };
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
  revision: string | null;
  trigger: string;
  result: string;
  startedAt: string;
  finishedAt: string | null;
  durationMs: number | null;
  error: string | null;
}

export interface HubEvent {
  cluster: string | null;
  type: string;
  reason: string;
  message: string;
  time: string;
}

/** What POST /clusters/{name}/agent/upgrade did. */
export interface AgentUpgrade {
  cluster: string;
  image: string;
  fromVersion: string | null;
  hubVersion: string;
  message: string;
}

export interface Tenant {
  name: string;
  description: string;
  destinations: { groups?: string[]; labelSelector?: Record<string, unknown> };
  namespaces: string[];
  serviceAccounts: string[];
  repositories: string[];
  bootstrapRoles: string[];
  createdAt: string;
  updatedAt: string;
}

export interface ApiToken {
  id: string;
  name: string;
  role: string;
  tenant: string | null;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}
