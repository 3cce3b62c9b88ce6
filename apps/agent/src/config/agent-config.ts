// The agent's one configuration object, parsed once at start from flags (and
// the downward-API environment). Every problem is collected, so a bad
// Deployment is fixed in one go instead of one restart per mistake.
import { type CueMemoryBudget, cueMemoryBudget, CueMemoryBudgetError, parseMemorySize, type ContainerResources, currentContainer } from '@flotilla/cue';
import { HEALTH_RECHECK_MS } from '@flotilla/engine';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EgressPolicyConfigError, type EgressPolicyOptions, parseEgressEntry } from '@flotilla/egress';
import { formatDuration, parseDuration } from './duration';

export interface AgentConfig {
  /** null: the mounted service-account token (in a pod) */
  kubeconfig: string | null;
  /** kubeconfig context; null for its current-context */
  context: string | null;
  /** watch Projects in this namespace only; null for all */
  watchNamespace: string | null;
  /** host:port of /metrics, /healthz and /readyz */
  httpHost: string;
  httpPort: number;
  leaderElect: boolean;
  leaderElection: { namespace: string | null; name: string; leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
  /** this replica's name in the Lease and in logs */
  identity: string;
  /** Projects reconciled at once */
  concurrency: number;
  /** how often each Project's tag is resolved for a new digest */
  pollIntervalMs: number;
  /** a Project is reconciled again this long after a success, new digest or not (drift is corrected) */
  reconcileIntervalMs: number;
  /** after a run that left objects unhealthy, the Project runs again within this */
  healthRecheckMs: number;
  /** retries of a failed run back off from retryInitialMs, doubling up to retryMaxMs (never past the reconcile interval) */
  retryInitialMs: number;
  retryMaxMs: number;
  /** artifacts and modules on disk */
  cacheDir: string;
  /** TIMONI_CLUSTER_NAME / TIMONI_CLUSTER_GROUP for every bundle (Project annotations may set them per Project) */
  clusterName: string;
  clusterGroup: string;
  /** recorded on every instance; prune and delete touch only this owner's */
  owner: string;
  /** Kubernetes API requests per second and burst */
  kubeQps: number;
  kubeBurst: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** the CDEvents receiver (`--events-address`, secrets from $FLOTILLA_EVENTS_SECRETS); null: none */
  events: { host: string; port: number; secrets: string[] } | null;
  /** CDEvents to the Projects' sinks: where the outboxes are kept (null: in memory only, lost on restart) and the retry timing */
  cdevents: { outboxNamespace: string | null; retryInitialMs: number; retryMaxMs: number; maxAttempts: number; maxQueued: number };
  /** connected mode: the hub to dial; null runs standalone */
  hub: HubLinkConfig | null;
  /** the CUE pool, sized so it fits the container's memory limit beside the agent itself */
  cue: CueMemoryBudget;
  /**
   * Where registries, token realms and CDEvents sinks may be reached (`--egress-allow`,
   * `--egress-deny`): metadata and link-local addresses are refused by default, loopback
   * (the pod's own) is allowed. The agent's own API server is not checked.
   */
  egress: EgressPolicyOptions;
}

/** Memory the agent keeps for itself beside the CUE pool (--cue-memory-reserve). */
export const DEFAULT_AGENT_MEMORY_RESERVE = 192 * 1048576;

export interface HubLinkConfig {
  /** host:port of the hub's agent gRPC server */
  address: string;
  /** PEM of the hub's agent CA (`--hub-ca-file`, else $FLOTILLA_HUB_CA): the hub is trusted only with a certificate from it */
  caPem: string;
  /** where the agent keeps its key and client certificate */
  identitySecret: { namespace: string; name: string };
  /** FLOTILLA_HUB_BOOTSTRAP_TOKEN: read when the agent has no certificate */
  bootstrapToken: string | undefined;
  reportBuffer: number;
  heartbeatMs: number;
  reconnectMaxMs: number;
  /** the agent's own Deployment, whose image an upgrade from the hub sets (`--self-deployment`); null: upgrades are refused */
  selfDeployment: { namespace: string; name: string } | null;
}

export class AgentConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid agent configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'AgentConfigError';
  }
}

interface FlagSpec {
  kind: 'string' | 'duration' | 'int' | 'bool';
  help: string;
}

export const AGENT_FLAGS: Record<string, FlagSpec> = {
  kubeconfig: { kind: 'string', help: 'kubeconfig file (default: $KUBECONFIG, else the in-cluster service account)' },
  context: { kind: 'string', help: 'kubeconfig context (default: its current-context)' },
  namespace: { kind: 'string', help: 'watch Projects in this namespace only (default: all namespaces)' },
  'http-address': { kind: 'string', help: 'host:port serving /metrics, /healthz and /readyz (default 127.0.0.1:9090)' },
  'events-address': { kind: 'string', help: 'host:port of the CDEvents receiver (artifact published → the Projects of that repository poll now); its shared secrets, comma-separated, come from $FLOTILLA_EVENTS_SECRETS (default: no receiver)' },
  'leader-elect': { kind: 'bool', help: 'elect one leader among replicas with a Lease (default false)' },
  'leader-election-namespace': { kind: 'string', help: 'namespace of the Lease (default: the pod namespace)' },
  'leader-election-id': { kind: 'string', help: 'name of the Lease (default flotilla-agent)' },
  'lease-duration': { kind: 'duration', help: 'how long others wait before taking over (default 15s)' },
  'renew-deadline': { kind: 'duration', help: 'how long the leader tries to renew before giving up (default 10s)' },
  'retry-period': { kind: 'duration', help: 'pause between acquire and renew attempts (default 2s)' },
  identity: { kind: 'string', help: 'this replica in the Lease (default: $POD_NAME, else the host name and process id)' },
  concurrent: { kind: 'int', help: 'Projects reconciled at once (default 4)' },
  'poll-interval': { kind: 'duration', help: 'how often each tag is checked for a new digest (default 1m)' },
  'reconcile-interval': { kind: 'duration', help: 'full reconcile after a success even without a new digest (default 10m)' },
  'health-recheck-interval': { kind: 'duration', help: 'after a run that left objects unhealthy, run again within this (default 30s; never past the interval)' },
  'retry-initial': { kind: 'duration', help: 'first retry after a failed run; doubles each time (default 5s)' },
  'retry-max': { kind: 'duration', help: 'longest pause between retries (default 10m; never past --reconcile-interval)' },
  'cache-dir': { kind: 'string', help: 'artifact and module cache (default <tmp>/flotilla-agent)' },
  'cluster-name': { kind: 'string', help: 'TIMONI_CLUSTER_NAME for every bundle (default _default: none)' },
  'cluster-group': { kind: 'string', help: 'TIMONI_CLUSTER_GROUP for every bundle (default none)' },
  owner: { kind: 'string', help: 'owner label recorded on instances (default flotilla-agent)' },
  'kube-api-qps': { kind: 'int', help: 'Kubernetes API requests per second (default 50)' },
  'kube-api-burst': { kind: 'int', help: 'Kubernetes API burst (default 100)' },
  'log-level': { kind: 'string', help: 'debug, info, warn or error (default info)' },
  'cdevents-outbox-namespace': { kind: 'string', help: 'namespace of the ConfigMaps holding undelivered CDEvents, one per Project (default: the pod namespace; none outside a pod keeps them in memory)' },
  'cdevents-retry-initial': { kind: 'duration', help: 'first wait before a failed CDEvent delivery is retried, doubling (default 1s)' },
  'cdevents-retry-max': { kind: 'duration', help: 'longest wait between CDEvent delivery attempts (default 5m)' },
  'cdevents-max-attempts': { kind: 'int', help: 'delivery attempts before a CDEvent is given up (default 20)' },
  'cdevents-max-queued': { kind: 'int', help: 'undelivered CDEvents kept per Project; past it the oldest are dropped and counted (default 1000)' },
  'hub-address': { kind: 'string', help: 'connected mode: host:port of the hub\'s agent server (default: none, standalone); the bootstrap token comes from $FLOTILLA_HUB_BOOTSTRAP_TOKEN' },
  'hub-identity-secret': { kind: 'string', help: 'namespace/name of the Secret keeping the agent\'s key and client certificate (default <pod namespace>/flotilla-agent-identity)' },
  'self-deployment': { kind: 'string', help: 'namespace/name of the agent\'s own Deployment, whose image an upgrade from the hub sets (default <pod namespace>/flotilla-agent; none outside a pod refuses upgrades)' },
  'hub-ca-file': { kind: 'string', help: 'PEM file of the hub\'s agent CA (default: $FLOTILLA_HUB_CA, which the install manifest sets)' },
  'report-buffer': { kind: 'int', help: 'run reports kept while the hub is unreachable (default 1000)' },
  'hub-heartbeat': { kind: 'duration', help: 'heartbeat to the hub (default 10s)' },
  'egress-allow': { kind: 'string', help: 'comma-separated hosts, *.suffix patterns, IP addresses and CIDRs that registries and sinks may be on even where the defaults refuse them (metadata, link-local, special-purpose ranges)' },
  'egress-deny': { kind: 'string', help: 'the same forms, never reached by registry or sink requests; wins over --egress-allow (e.g. 127.0.0.0/8 to refuse the pod\'s loopback)' },
  'hub-reconnect-max': { kind: 'duration', help: 'longest wait between reconnects to the hub, jittered (default 1m)' },
  'cue-pool-size': { kind: 'int', help: 'CUE workers (default: one per CPU while each gets 256Mi of the container\'s memory limit)' },
  'cue-memory-reserve': { kind: 'string', help: 'memory kept for the agent beside the CUE pool, e.g. 192Mi; the rest of the container\'s limit is split over the CUE workers (default 192Mi)' },
};

const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

export function agentUsage(): string {
  const lines = Object.entries(AGENT_FLAGS).map(([name, f]) => `  --${name}${f.kind === 'bool' ? '' : `=<${f.kind}>`}\n      ${f.help}`);
  return `usage: flotilla-agent [flags]\n\nflags:\n${lines.join('\n')}\n  --help\n`;
}

/** Splits `--name=value`, `--name value` and bare booleans; unknown flags and stray words are problems. */
function readFlags(argv: readonly string[], problems: string[]): Map<string, string> {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const m = /^--([a-z][a-z0-9-]*)(?:=(.*))?$/s.exec(arg);
    if (!m) {
      problems.push(`unexpected argument "${arg}" (flags look like --name=value)`);
      continue;
    }
    const [, name, inline] = m;
    const spec = AGENT_FLAGS[name];
    if (!spec) {
      problems.push(`unknown flag --${name}`);
      continue;
    }
    let value = inline;
    if (value === undefined) {
      if (spec.kind === 'bool') value = 'true';
      else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) value = argv[++i];
      else {
        problems.push(`--${name} needs a value`);
        continue;
      }
    }
    if (values.has(name)) problems.push(`--${name} is given more than once`);
    values.set(name, value);
  }
  return values;
}

export function parseAgentConfig(argv: readonly string[], env: Record<string, string | undefined>, machine: ContainerResources = currentContainer()): AgentConfig {
  const problems: string[] = [];
  const flags = readFlags(argv, problems);
  const str = (name: string, fallback: string | null): string | null => {
    const v = flags.get(name);
    if (v === undefined) return fallback;
    if (v === '') problems.push(`--${name} must not be empty`);
    return v;
  };
  const duration = (name: string, fallbackMs: number, minMs: number): number => {
    const v = flags.get(name);
    if (v === undefined) return fallbackMs;
    const ms = parseDuration(v);
    if (ms === undefined) {
      problems.push(`--${name}="${v}" is not a duration (e.g. 30s, 1m30s, 500ms)`);
      return fallbackMs;
    }
    if (ms < minMs) problems.push(`--${name}=${v} is below the least allowed, ${formatDuration(minMs)}`);
    return ms;
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const v = flags.get(name);
    if (v === undefined) return fallback;
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
      problems.push(`--${name}="${v}" must be a whole number from ${min} to ${max}`);
      return fallback;
    }
    return Number(v);
  };
  const bool = (name: string): boolean => {
    const v = flags.get(name);
    if (v === undefined) return false;
    if (v !== 'true' && v !== 'false') problems.push(`--${name}="${v}" must be true or false`);
    return v === 'true';
  };

  const kubeconfig = str('kubeconfig', env.KUBECONFIG || null);
  const context = str('context', null);
  if (context !== null && kubeconfig === null) problems.push('--context needs a kubeconfig (--kubeconfig or $KUBECONFIG)');
  const watchNamespace = str('namespace', null);
  if (watchNamespace && !DNS_LABEL.test(watchNamespace)) problems.push(`--namespace="${watchNamespace}" is not a namespace name`);

  const address = str('http-address', '127.0.0.1:9090') ?? '';
  const hostPort = /^(.*):(\d{1,5})$/.exec(address);
  let httpHost = '127.0.0.1';
  let httpPort = 9090;
  if (!hostPort || Number(hostPort[2]) > 65535) problems.push(`--http-address="${address}" must be host:port (port 0 picks a free one)`);
  else {
    httpHost = hostPort[1].replace(/^\[(.*)\]$/, '$1') || '0.0.0.0';
    httpPort = Number(hostPort[2]);
  }

  const leaderElect = bool('leader-elect');
  const leaseNamespace = str('leader-election-namespace', env.POD_NAMESPACE || null);
  const leaseName = str('leader-election-id', 'flotilla-agent') ?? 'flotilla-agent';
  if (leaseNamespace && !DNS_LABEL.test(leaseNamespace)) problems.push(`--leader-election-namespace="${leaseNamespace}" is not a namespace name`);
  if (!DNS_SUBDOMAIN.test(leaseName)) problems.push(`--leader-election-id="${leaseName}" is not a valid object name`);
  const leaseDurationMs = duration('lease-duration', 15_000, 1000);
  const renewDeadlineMs = duration('renew-deadline', 10_000, 500);
  const retryPeriodMs = duration('retry-period', 2_000, 100);
  if (renewDeadlineMs >= leaseDurationMs) problems.push(`--renew-deadline (${formatDuration(renewDeadlineMs)}) must be below --lease-duration (${formatDuration(leaseDurationMs)})`);
  if (retryPeriodMs >= renewDeadlineMs) problems.push(`--retry-period (${formatDuration(retryPeriodMs)}) must be below --renew-deadline (${formatDuration(renewDeadlineMs)})`);
  if (leaderElect && !leaseNamespace && kubeconfig !== null) problems.push('--leader-elect outside a pod needs --leader-election-namespace');

  const identity = str('identity', env.POD_NAME || `${env.HOSTNAME || 'agent'}-${process.pid}`) ?? '';
  const owner = str('owner', 'flotilla-agent') ?? '';
  if (!LABEL_VALUE.test(owner)) problems.push(`--owner="${owner}" must be a label value (63 characters of letters, digits, -, _ and .)`);
  const clusterName = str('cluster-name', '_default') ?? '';
  const clusterGroup = str('cluster-group', '') ?? '';
  const logLevel = str('log-level', 'info') ?? 'info';
  if (!['debug', 'info', 'warn', 'error'].includes(logLevel)) problems.push(`--log-level="${logLevel}" must be debug, info, warn or error`);

  let events: AgentConfig['events'] = null;
  const eventsAddress = str('events-address', null);
  if (eventsAddress !== null) {
    const m = /^(.*):(\d{1,5})$/.exec(eventsAddress);
    const secrets = (env.FLOTILLA_EVENTS_SECRETS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    if (!m || Number(m[2]) > 65535) problems.push(`--events-address="${eventsAddress}" must be host:port (port 0 picks a free one)`);
    else if (secrets.length === 0) problems.push('--events-address needs at least one shared secret in $FLOTILLA_EVENTS_SECRETS (comma-separated)');
    else if (secrets.some((s) => s.length < 16)) problems.push('$FLOTILLA_EVENTS_SECRETS: every secret must be at least 16 characters');
    else events = { host: m[1].replace(/^\[(.*)\]$/, '$1') || '0.0.0.0', port: Number(m[2]), secrets };
  }
  const outboxNamespace = str('cdevents-outbox-namespace', env.POD_NAMESPACE || null);
  if (outboxNamespace && !DNS_LABEL.test(outboxNamespace)) problems.push(`--cdevents-outbox-namespace="${outboxNamespace}" is not a namespace name`);
  const cdevents: AgentConfig['cdevents'] = {
    outboxNamespace,
    retryInitialMs: duration('cdevents-retry-initial', 1000, 10),
    retryMaxMs: duration('cdevents-retry-max', 300_000, 10),
    maxAttempts: int('cdevents-max-attempts', 20, 1, 1000),
    maxQueued: int('cdevents-max-queued', 1000, 1, 100_000),
  };
  let hub: HubLinkConfig | null = null;
  const hubAddress = str('hub-address', null);
  if (hubAddress !== null) {
    if (!/^[A-Za-z0-9.-]+:\d{1,5}$|^\[[0-9A-Fa-f:]+\]:\d{1,5}$/.test(hubAddress)) problems.push(`--hub-address="${hubAddress}" must be host:port`);
    const secret = str('hub-identity-secret', env.POD_NAMESPACE ? `${env.POD_NAMESPACE}/flotilla-agent-identity` : null);
    const [secretNamespace, secretName] = secret?.split('/') ?? [];
    if (!secret) problems.push('--hub-address outside a pod needs --hub-identity-secret=<namespace>/<name>');
    else if (!DNS_LABEL.test(secretNamespace ?? '') || !DNS_SUBDOMAIN.test(secretName ?? '')) problems.push(`--hub-identity-secret="${secret}" must be <namespace>/<name>`);
    const self = str('self-deployment', env.POD_NAMESPACE ? `${env.POD_NAMESPACE}/flotilla-agent` : null);
    const [selfNamespace, selfName] = self?.split('/') ?? [];
    if (self !== null && (!DNS_LABEL.test(selfNamespace ?? '') || !DNS_SUBDOMAIN.test(selfName ?? ''))) problems.push(`--self-deployment="${self}" must be <namespace>/<name>`);
    hub = {
      address: hubAddress,
      caPem: hubCa(str('hub-ca-file', null), env.FLOTILLA_HUB_CA, problems),
      identitySecret: { namespace: secretNamespace ?? '', name: secretName ?? '' },
      bootstrapToken: env.FLOTILLA_HUB_BOOTSTRAP_TOKEN || undefined,
      reportBuffer: int('report-buffer', 1000, 1, 1_000_000),
      heartbeatMs: duration('hub-heartbeat', 10_000, 100),
      reconnectMaxMs: duration('hub-reconnect-max', 60_000, 100),
      selfDeployment: self !== null ? { namespace: selfNamespace ?? '', name: selfName ?? '' } : null,
    };
  }

  const cue = cueBudget(flags.has('cue-pool-size') ? int('cue-pool-size', 1, 1, 64) : undefined, str('cue-memory-reserve', null), machine, problems);

  const config: AgentConfig = {
    kubeconfig,
    context,
    watchNamespace,
    httpHost,
    httpPort,
    leaderElect,
    leaderElection: { namespace: leaseNamespace, name: leaseName, leaseDurationMs, renewDeadlineMs, retryPeriodMs },
    identity,
    concurrency: int('concurrent', 4, 1, 64),
    pollIntervalMs: duration('poll-interval', 60_000, 100),
    reconcileIntervalMs: duration('reconcile-interval', 600_000, 1000),
    healthRecheckMs: duration('health-recheck-interval', HEALTH_RECHECK_MS, 1000),
    retryInitialMs: duration('retry-initial', 5_000, 100),
    retryMaxMs: duration('retry-max', 600_000, 100),
    cacheDir: str('cache-dir', join(tmpdir(), 'flotilla-agent')) ?? '',
    clusterName,
    clusterGroup,
    owner,
    kubeQps: int('kube-api-qps', 50, 1, 10_000),
    kubeBurst: int('kube-api-burst', 100, 1, 10_000),
    logLevel: logLevel as AgentConfig['logLevel'],
    events,
    cdevents,
    hub,
    cue,
    egress: { allow: egressList('egress-allow', str('egress-allow', null), problems), deny: egressList('egress-deny', str('egress-deny', null), problems), allowLoopback: true },
  };
  if (problems.length > 0) throw new AgentConfigError(problems);
  return config;
}

/** A comma-separated egress list; each entry that does not parse is a problem naming the flag. */
function egressList(flag: string, raw: string | null, problems: string[]): string[] {
  const entries = (raw ?? '').split(',').map((e) => e.trim()).filter((e) => e !== '');
  for (const entry of entries) {
    try {
      parseEgressEntry(entry);
    } catch (err) {
      if (!(err instanceof EgressPolicyConfigError)) throw err;
      problems.push(`--${flag}: ${err.message}`);
    }
  }
  return entries;
}

/** The hub's agent CA from its file, or from the environment; a problem when there is none or it is no CA certificate. */
function hubCa(file: string | null, fromEnv: string | undefined, problems: string[]): string {
  let pem = fromEnv?.trim() ? fromEnv : undefined;
  const source = file ? `--hub-ca-file=${file}` : '$FLOTILLA_HUB_CA';
  if (file) {
    try {
      pem = readFileSync(file, 'utf8');
    } catch (err) {
      problems.push(`${source}: cannot read it (${err instanceof Error ? err.message : String(err)})`);
      return '';
    }
  }
  if (!pem) {
    problems.push('--hub-address needs the hub\'s agent CA: $FLOTILLA_HUB_CA (the install manifest sets it) or --hub-ca-file=<PEM file>');
    return '';
  }
  try {
    if (new X509Certificate(pem).ca) return pem;
  } catch {
    // reported below
  }
  problems.push(`${source}: not a PEM CA certificate`);
  return '';
}

/** The CUE pool for the container: the operator's pool size and reserve, the rest from its memory limit. */
function cueBudget(poolSize: number | undefined, reserve: string | null, machine: ContainerResources, problems: string[]): CueMemoryBudget {
  let reserveBytes = DEFAULT_AGENT_MEMORY_RESERVE;
  if (reserve !== null) {
    const bytes = parseMemorySize(reserve);
    if (bytes === undefined) problems.push(`--cue-memory-reserve="${reserve}" must be a size such as 192Mi or 1Gi`);
    else reserveBytes = bytes;
  }
  try {
    return cueMemoryBudget({ limitBytes: machine.memoryLimitBytes, cpus: machine.cpus, reserveBytes, poolSize });
  } catch (err) {
    if (!(err instanceof CueMemoryBudgetError)) throw err;
    problems.push(`the CUE pool does not fit the container (--cue-memory-reserve, --cue-pool-size): ${err.message}`);
    return cueMemoryBudget({ limitBytes: null, cpus: 1, reserveBytes });
  }
}
