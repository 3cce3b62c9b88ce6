import { type CueMemoryBudget, cueMemoryBudget, CueMemoryBudgetError, parseMemorySize, type ContainerResources, currentContainer } from '@flotilla/cue';
import { AGENT_PROTOCOL_LIMITS } from '@flotilla/agent-protocol';
import { InvalidReferenceError, parseReference } from '@flotilla/oci';
import { HEALTH_RECHECK_MS } from '@flotilla/engine';
import { randomBytes } from 'node:crypto';
import { availableParallelism, hostname } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { parseDurationMs } from '../common/duration';
import { type AuditConfig, defaultAuditConfig, parseAuditConfig } from './audit-config';
import { HUB_VERSION } from '../common/hub-version';
import { type CdeventsConfig, defaultCdeventsConfig, parseCdeventsConfig } from './cdevents-config';
import { defaultEgressConfig, type EgressConfig, parseEgressConfig } from './egress-config';
import { type OidcConfig, parseOidcConfig } from './oidc-config';
import { parsePublicUrl } from './public-url';

/** Hub settings, parsed once at boot from the environment. */
export interface HubConfig {
  /** TCP port of the HTTP server (PORT, default 8080). */
  port: number;
  /** Address to bind (HOST, default 0.0.0.0; tests use 127.0.0.1). */
  host: string;
  /** Directory for the embedded database and key files (FLOTILLA_DATA_DIR, default ./.flotilla). */
  dataDir: string;
  /** postgres:// URL of a real PostgreSQL; unset means the embedded PGlite under dataDir/pgdata. */
  databaseUrl?: string;
  /** First admin token (FLOTILLA_ADMIN_TOKEN); unset means one is generated and printed at first start. */
  adminToken?: string;
  /** pino level (LOG_LEVEL, default info). */
  logLevel: LogLevel;
  /** Credential encryption keys `id:base64,…`, first current (FLOTILLA_ENCRYPTION_KEYS). */
  encryptionKeys?: string;
  /** File of such keys, one per line (FLOTILLA_ENCRYPTION_KEY_FILE); with neither, dataDir/encryption-keys is generated. */
  encryptionKeyFile?: string;
  /** The scheduler that makes Projects converge. */
  scheduler: SchedulerConfig;
  /**
   * Requests without a token read as a viewer (FLOTILLA_ANONYMOUS_VIEWER=on;
   * default off): a status page on a wall screen with no one to sign in.
   * Writes still need a token.
   */
  anonymousViewer?: boolean;
  /** CDEvents receiver and delivery. */
  cdevents: CdeventsConfig;
  /** The gRPC server connected agents dial. */
  agents: AgentServerConfig;
  /** The CUE pool of push runs, sized so it fits the container's memory limit beside the hub itself. */
  cue: CueMemoryBudget;
  /** API tokens and the guard in front of them. */
  auth: AuthConfig;
  /** Where the hub may connect (FLOTILLA_EGRESS_*). */
  egress: EgressConfig;
  /** The audit log's retention (FLOTILLA_AUDIT_*). */
  audit: AuditConfig;
  /** Single sign-on (FLOTILLA_OIDC_*); absent: static tokens only. */
  oidc?: OidcConfig;
  /** The status page's address as people reach it (FLOTILLA_PUBLIC_URL), for links in chat notices; absent: they carry none. */
  publicUrl?: string;
}

export interface AuthConfig {
  /** Longest lifetime an API token may be created with (FLOTILLA_TOKEN_MAX_LIFETIME, e.g. 720h); set, a token must have an expiry. Unset: no limit. */
  tokenMaxLifetimeMs?: number;
  /** Bearer token /metrics asks for (FLOTILLA_METRICS_TOKEN, at least 16 characters); unset: /metrics takes a global API token. */
  metricsToken?: string;
  /** Failed authentications one source address may make per window before it gets 429 (FLOTILLA_AUTH_FAILURE_LIMIT, default 10; 0: no limit). */
  failureLimit: number;
  /** The window of failureLimit (FLOTILLA_AUTH_FAILURE_WINDOW, default 1m). */
  failureWindowMs: number;
}

export function defaultAuthConfig(): AuthConfig {
  return { failureLimit: 10, failureWindowMs: 60_000 };
}

/** Memory the hub keeps for itself beside the CUE pool (FLOTILLA_CUE_MEMORY_RESERVE): agent streams, caches, the embedded database. */
export const DEFAULT_HUB_MEMORY_RESERVE = 384 * 1048576;

export interface AgentServerConfig {
  /** TCP port of the agents' gRPC server (FLOTILLA_AGENT_PORT, default 9443; 0: any free port). */
  port: number;
  /** Address to bind (FLOTILLA_AGENT_HOST, default HOST). */
  host: string;
  /** host:port agents dial, written into install manifests (FLOTILLA_AGENT_PUBLIC_ADDRESS, default host:port). */
  publicAddress?: string;
  /** How often each side says it is alive (FLOTILLA_AGENT_HEARTBEAT, default 10s). */
  heartbeatMs: number;
  /** No message for this long: the agent is Disconnected and its stream closed (FLOTILLA_AGENT_HEARTBEAT_TIMEOUT, default 30s). */
  heartbeatTimeoutMs: number;
  /** Lifetime of a bootstrap token (FLOTILLA_AGENT_BOOTSTRAP_TTL, default 1h). */
  bootstrapTtlMs: number;
  /** Lifetime of an agent's client certificate; agents renew it two thirds in (FLOTILLA_AGENT_CERT_TTL, default 720h). */
  certTtlMs: number;
  /** The operator's agent CA, PEM certificate and key (FLOTILLA_AGENT_CA_CERT_FILE, FLOTILLA_AGENT_CA_KEY_FILE, both or neither); unset: the hub makes one and keeps it in the database. */
  caCertFile?: string;
  caKeyFile?: string;
  /**
   * Messages one agent stream may send, as token buckets (burst, then per second); past one the
   * stream is closed with RESOURCE_EXHAUSTED. Reports: FLOTILLA_AGENT_REPORT_RATE and
   * FLOTILLA_AGENT_REPORT_BURST (default 50, 1000); events: FLOTILLA_AGENT_EVENT_RATE and
   * FLOTILLA_AGENT_EVENT_BURST (default 100, 1000); the rest (heartbeats, acks, diffs, renewals) as the protocol says.
   */
  streamRates: AgentStreamRates;
  /**
   * The agent image install manifests name and upgrades move agents to
   * (FLOTILLA_AGENT_IMAGE, default ghcr.io/flotilla-dev/flotilla-agent:<hub version>).
   * Only this: no request chooses the image an agent runs.
   */
  image: string;
  /** Move every agent whose version is not the hub's to `image` when it connects (FLOTILLA_AGENT_AUTO_UPGRADE, default off). */
  autoUpgrade: boolean;
}

/** The agent image of this hub's release. */
export const DEFAULT_AGENT_IMAGE = `ghcr.io/flotilla-dev/flotilla-agent:${HUB_VERSION}`;

export interface AgentStreamRates {
  reports: { perSecond: number; burst: number };
  events: { perSecond: number; burst: number };
  other: { perSecond: number; burst: number };
}

export function defaultAgentServerConfig(host = '0.0.0.0'): AgentServerConfig {
  const r = AGENT_PROTOCOL_LIMITS.streamRates;
  return {
    port: 9443,
    host,
    heartbeatMs: 10_000,
    heartbeatTimeoutMs: 30_000,
    bootstrapTtlMs: 3600_000,
    certTtlMs: 30 * 24 * 3600_000,
    streamRates: { reports: { ...r.reports }, events: { ...r.events }, other: { ...r.other } },
    image: DEFAULT_AGENT_IMAGE,
    autoUpgrade: false,
  };
}

export interface SchedulerConfig {
  /** FLOTILLA_SCHEDULER=off disables it (API-only replicas, tests); default on. */
  enabled: boolean;
  /** How often it claims due Targets and polls sources (FLOTILLA_SCHEDULER_TICK, default 2s). */
  tickMs: number;
  /** Lease length; renewed every third of it while a run lasts (FLOTILLA_LEASE_TTL, default 30s). */
  leaseTtlMs: number;
  /** Runs at once in this replica (FLOTILLA_SCHEDULER_CONCURRENCY, default 32: push runs mostly wait on API servers, and the CUE pool bounds their CPU). */
  concurrency: number;
  /** How often each Project's tag is resolved again (FLOTILLA_SOURCE_POLL_INTERVAL, default 1m). */
  sourcePollMs: number;
  /** How often the hub checks each push cluster's API server: reachability and version (FLOTILLA_CLUSTER_CHECK_INTERVAL, default 1m). */
  clusterCheckMs: number;
  /** After a run that left objects unhealthy, the Target runs again within this (FLOTILLA_HEALTH_RECHECK_INTERVAL, default 30s). */
  healthRecheckMs: number;
  /** tag resolutions in flight at once (each under the registry client's deadline) */
  sourceConcurrency: number;
  /** At shutdown, how long runs may finish before they are aborted and their leases released (FLOTILLA_SHUTDOWN_GRACE, default 20s). */
  shutdownGraceMs: number;
  /** This replica's name as lease owner (FLOTILLA_HUB_ID, default host-pid-random). */
  hubId: string;
  /** Retry backoff after failures. */
  backoff: { initialMs: number; factor: number; maxMs: number; jitter: number };
}

export function defaultSchedulerConfig(): SchedulerConfig {
  return {
    enabled: true,
    tickMs: 2000,
    leaseTtlMs: 30_000,
    concurrency: 32,
    sourcePollMs: 60_000,
    clusterCheckMs: 60_000,
    healthRecheckMs: HEALTH_RECHECK_MS,
    sourceConcurrency: 8,
    shutdownGraceMs: 20_000,
    hubId: `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    backoff: { initialMs: 5000, factor: 2, maxMs: 600_000, jitter: 0.2 },
  };
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function defaultHubConfig(): HubConfig {
  return {
    port: 8080,
    host: '0.0.0.0',
    dataDir: resolve('.flotilla'),
    logLevel: 'info',
    scheduler: defaultSchedulerConfig(),
    cdevents: defaultCdeventsConfig(),
    agents: defaultAgentServerConfig(),
    cue: cueMemoryBudget({ limitBytes: null, cpus: availableParallelism(), reserveBytes: DEFAULT_HUB_MEMORY_RESERVE }),
    auth: defaultAuthConfig(),
    egress: defaultEgressConfig(),
    audit: defaultAuditConfig(),
  };
}

/** Every bad environment variable, listed at once. */
export class HubConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid hub configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'HubConfigError';
  }
}

/** Reads the environment into a HubConfig; throws HubConfigError naming every bad variable. */
export function parseHubConfig(env: Record<string, string | undefined>, cwd = process.cwd(), machine: ContainerResources = currentContainer()): HubConfig {
  const config = defaultHubConfig();
  const problems: string[] = [];
  const value = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };

  const port = value('PORT');
  if (port !== undefined) {
    const n = Number(port);
    if (!/^\d+$/.test(port) || n < 0 || n > 65535) {
      problems.push(`PORT=${JSON.stringify(port)}: expected an integer from 0 to 65535`);
    } else {
      config.port = n;
    }
  }

  const host = value('HOST');
  if (host !== undefined) config.host = host;

  const dataDir = value('FLOTILLA_DATA_DIR');
  config.dataDir = resolve(cwd, dataDir ?? '.flotilla');
  if (dataDir !== undefined && !isAbsolute(dataDir) && dataDir.startsWith('~')) {
    problems.push(`FLOTILLA_DATA_DIR=${JSON.stringify(dataDir)}: "~" is not expanded; give an absolute or relative path`);
  }

  const databaseUrl = value('DATABASE_URL');
  if (databaseUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(databaseUrl);
    } catch {
      problems.push('DATABASE_URL: not a valid URL (expected postgres://user:password@host:port/database)');
    }
    if (url && url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
      problems.push(`DATABASE_URL: scheme ${url.protocol} is not supported (expected postgres:// or postgresql://)`);
    } else if (url) {
      config.databaseUrl = databaseUrl;
    }
  }

  const adminToken = value('FLOTILLA_ADMIN_TOKEN');
  if (adminToken !== undefined) {
    if (adminToken.length < 16) problems.push('FLOTILLA_ADMIN_TOKEN: must be at least 16 characters');
    else config.adminToken = adminToken;
  }

  const encryptionKeys = value('FLOTILLA_ENCRYPTION_KEYS');
  const encryptionKeyFile = value('FLOTILLA_ENCRYPTION_KEY_FILE');
  if (encryptionKeys !== undefined && encryptionKeyFile !== undefined) {
    problems.push('FLOTILLA_ENCRYPTION_KEYS and FLOTILLA_ENCRYPTION_KEY_FILE: set only one');
  }
  if (encryptionKeys !== undefined) config.encryptionKeys = encryptionKeys;
  if (encryptionKeyFile !== undefined) config.encryptionKeyFile = resolve(cwd, encryptionKeyFile);

  const logLevel = value('LOG_LEVEL');
  if (logLevel !== undefined) {
    if ((LOG_LEVELS as readonly string[]).includes(logLevel)) config.logLevel = logLevel as LogLevel;
    else problems.push(`LOG_LEVEL=${JSON.stringify(logLevel)}: expected one of ${LOG_LEVELS.join(', ')}`);
  }

  const scheduler = value('FLOTILLA_SCHEDULER');
  if (scheduler !== undefined) {
    if (['on', 'true', '1'].includes(scheduler)) config.scheduler.enabled = true;
    else if (['off', 'false', '0'].includes(scheduler)) config.scheduler.enabled = false;
    else problems.push(`FLOTILLA_SCHEDULER=${JSON.stringify(scheduler)}: expected on or off`);
  }
  const anonymous = value('FLOTILLA_ANONYMOUS_VIEWER');
  if (anonymous !== undefined) {
    if (['on', 'true', '1'].includes(anonymous)) config.anonymousViewer = true;
    else if (['off', 'false', '0'].includes(anonymous)) config.anonymousViewer = false;
    else problems.push(`FLOTILLA_ANONYMOUS_VIEWER=${JSON.stringify(anonymous)}: expected on or off`);
  }
  const durations: Array<[string, 'tickMs' | 'leaseTtlMs' | 'sourcePollMs' | 'clusterCheckMs' | 'healthRecheckMs' | 'shutdownGraceMs', number]> = [
    ['FLOTILLA_SCHEDULER_TICK', 'tickMs', 10],
    ['FLOTILLA_LEASE_TTL', 'leaseTtlMs', 1000],
    ['FLOTILLA_SOURCE_POLL_INTERVAL', 'sourcePollMs', 1000],
    ['FLOTILLA_CLUSTER_CHECK_INTERVAL', 'clusterCheckMs', 1000],
    ['FLOTILLA_HEALTH_RECHECK_INTERVAL', 'healthRecheckMs', 1000],
    ['FLOTILLA_SHUTDOWN_GRACE', 'shutdownGraceMs', 0],
  ];
  for (const [name, field, min] of durations) {
    const v = value(name);
    if (v === undefined) continue;
    const ms = parseDurationMs(v);
    if (ms === undefined || ms < min) problems.push(`${name}=${JSON.stringify(v)}: expected a duration such as 500ms, 30s or 1m, at least ${min} ms`);
    else config.scheduler[field] = ms;
  }
  const concurrency = value('FLOTILLA_SCHEDULER_CONCURRENCY');
  if (concurrency !== undefined) {
    if (!/^\d+$/.test(concurrency) || Number(concurrency) < 1 || Number(concurrency) > 1000) problems.push(`FLOTILLA_SCHEDULER_CONCURRENCY=${JSON.stringify(concurrency)}: expected an integer from 1 to 1000`);
    else config.scheduler.concurrency = Number(concurrency);
  }
  const hubId = value('FLOTILLA_HUB_ID');
  if (hubId !== undefined) {
    if (!/^[A-Za-z0-9._-]{1,100}$/.test(hubId)) problems.push(`FLOTILLA_HUB_ID=${JSON.stringify(hubId)}: expected 1-100 characters of [A-Za-z0-9._-]`);
    else config.scheduler.hubId = hubId;
  }

  config.cdevents = parseCdeventsConfig(value, problems);
  parseAuthConfig(value, config.auth, problems);
  config.egress = parseEgressConfig(value, problems);
  config.audit = parseAuditConfig(value, problems);
  const oidc = parseOidcConfig(value, problems, cwd);
  if (oidc) config.oidc = oidc;
  const publicUrl = value('FLOTILLA_PUBLIC_URL');
  if (publicUrl !== undefined) {
    const parsed = parsePublicUrl(publicUrl);
    if ('url' in parsed) config.publicUrl = parsed.url;
    else problems.push(parsed.problem);
  }
  parseAgentServerConfig(value, config, problems, cwd);
  parseCueConfig(value, config, problems, machine);

  if (problems.length > 0) throw new HubConfigError(problems);
  return config;
}

function parseAgentServerConfig(value: (name: string) => string | undefined, config: HubConfig, problems: string[], cwd: string): void {
  const agents = config.agents;
  agents.host = value('FLOTILLA_AGENT_HOST') ?? config.host;
  const port = value('FLOTILLA_AGENT_PORT');
  if (port !== undefined) {
    if (!/^\d+$/.test(port) || Number(port) > 65535) problems.push(`FLOTILLA_AGENT_PORT=${JSON.stringify(port)}: expected an integer from 0 to 65535`);
    else agents.port = Number(port);
  }
  const address = value('FLOTILLA_AGENT_PUBLIC_ADDRESS');
  if (address !== undefined) {
    if (!/^[A-Za-z0-9.-]+:\d{1,5}$|^\[[0-9A-Fa-f:]+\]:\d{1,5}$/.test(address)) problems.push(`FLOTILLA_AGENT_PUBLIC_ADDRESS=${JSON.stringify(address)}: expected host:port`);
    else agents.publicAddress = address;
  }
  const rates: Array<[string, 'reports' | 'events', 'perSecond' | 'burst']> = [
    ['FLOTILLA_AGENT_REPORT_RATE', 'reports', 'perSecond'],
    ['FLOTILLA_AGENT_REPORT_BURST', 'reports', 'burst'],
    ['FLOTILLA_AGENT_EVENT_RATE', 'events', 'perSecond'],
    ['FLOTILLA_AGENT_EVENT_BURST', 'events', 'burst'],
  ];
  for (const [name, kind, field] of rates) {
    const v = value(name);
    if (v === undefined) continue;
    if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 100_000) problems.push(`${name}=${JSON.stringify(v)}: expected an integer from 1 to 100000 (messages ${field === 'burst' ? 'at once' : 'per second'} on one agent stream)`);
    else agents.streamRates[kind][field] = Number(v);
  }
  const durations: Array<[string, 'heartbeatMs' | 'heartbeatTimeoutMs' | 'bootstrapTtlMs' | 'certTtlMs', number]> = [
    ['FLOTILLA_AGENT_HEARTBEAT', 'heartbeatMs', 100],
    ['FLOTILLA_AGENT_HEARTBEAT_TIMEOUT', 'heartbeatTimeoutMs', 300],
    ['FLOTILLA_AGENT_BOOTSTRAP_TTL', 'bootstrapTtlMs', 1000],
    // shorter would have agents renewing more than they work
    ['FLOTILLA_AGENT_CERT_TTL', 'certTtlMs', 10_000],
  ];
  for (const [name, field, min] of durations) {
    const v = value(name);
    if (v === undefined) continue;
    const ms = parseDurationMs(v);
    if (ms === undefined || ms < min) problems.push(`${name}=${JSON.stringify(v)}: expected a duration such as 500ms, 30s or 1m, at least ${min} ms`);
    else agents[field] = ms;
  }
  if (agents.heartbeatTimeoutMs <= agents.heartbeatMs) problems.push('FLOTILLA_AGENT_HEARTBEAT_TIMEOUT: must be longer than FLOTILLA_AGENT_HEARTBEAT');
  const image = value('FLOTILLA_AGENT_IMAGE');
  if (image !== undefined) {
    const problem = agentImageProblem(image);
    if (problem) problems.push(`FLOTILLA_AGENT_IMAGE=${JSON.stringify(image.slice(0, 100))}: ${problem}`);
    else agents.image = image;
  }
  const autoUpgrade = value('FLOTILLA_AGENT_AUTO_UPGRADE');
  if (autoUpgrade !== undefined) {
    if (['on', 'true', '1'].includes(autoUpgrade)) agents.autoUpgrade = true;
    else if (['off', 'false', '0'].includes(autoUpgrade)) agents.autoUpgrade = false;
    else problems.push(`FLOTILLA_AGENT_AUTO_UPGRADE=${JSON.stringify(autoUpgrade)}: expected on or off`);
  }
  const caCert = value('FLOTILLA_AGENT_CA_CERT_FILE');
  const caKey = value('FLOTILLA_AGENT_CA_KEY_FILE');
  if ((caCert === undefined) !== (caKey === undefined)) problems.push('FLOTILLA_AGENT_CA_CERT_FILE and FLOTILLA_AGENT_CA_KEY_FILE: set both (the operator\'s agent CA) or neither (the hub makes one)');
  else if (caCert !== undefined && caKey !== undefined) {
    agents.caCertFile = resolve(cwd, caCert);
    agents.caKeyFile = resolve(cwd, caKey);
  }
}

/** Why `image` is not an image reference an agent can be given, if it is not. */
function agentImageProblem(image: string): string | undefined {
  const limit = AGENT_PROTOCOL_LIMITS.maxStringBytes.image;
  if (Buffer.byteLength(image) > limit) return `expected an image reference of at most ${limit} bytes`;
  try {
    const ref = parseReference(image);
    if (image.startsWith('oci://')) return 'expected an image reference without oci://, as a Deployment names it';
    if (!ref.tag && !ref.digest) return 'expected a tag or a digest (host/repository:tag or @sha256:…): an agent image is never "latest" by default';
    return undefined;
  } catch (err) {
    if (err instanceof InvalidReferenceError) return `not an image reference: ${err.message}`;
    throw err;
  }
}

function parseCueConfig(value: (name: string) => string | undefined, config: HubConfig, problems: string[], machine: ContainerResources): void {
  let reserveBytes = DEFAULT_HUB_MEMORY_RESERVE;
  let poolSize: number | undefined;
  const reserve = value('FLOTILLA_CUE_MEMORY_RESERVE');
  if (reserve !== undefined) {
    const bytes = parseMemorySize(reserve);
    if (bytes === undefined) return void problems.push(`FLOTILLA_CUE_MEMORY_RESERVE=${JSON.stringify(reserve)}: expected a size such as 384Mi or 1Gi`);
    reserveBytes = bytes;
  }
  const pool = value('FLOTILLA_CUE_POOL_SIZE');
  if (pool !== undefined) {
    if (!/^\d+$/.test(pool) || Number(pool) < 1 || Number(pool) > 64) return void problems.push(`FLOTILLA_CUE_POOL_SIZE=${JSON.stringify(pool)}: expected an integer from 1 to 64`);
    poolSize = Number(pool);
  }
  try {
    config.cue = cueMemoryBudget({ limitBytes: machine.memoryLimitBytes, cpus: machine.cpus, reserveBytes, poolSize });
  } catch (err) {
    if (!(err instanceof CueMemoryBudgetError)) throw err;
    problems.push(`the CUE pool does not fit the container (FLOTILLA_CUE_MEMORY_RESERVE, FLOTILLA_CUE_POOL_SIZE): ${err.message}`);
  }
}

function parseAuthConfig(value: (name: string) => string | undefined, auth: AuthConfig, problems: string[]): void {
  const maxLifetime = value('FLOTILLA_TOKEN_MAX_LIFETIME');
  if (maxLifetime !== undefined) {
    const ms = parseDurationMs(maxLifetime);
    if (ms === undefined || ms < 60_000) problems.push(`FLOTILLA_TOKEN_MAX_LIFETIME=${JSON.stringify(maxLifetime)}: expected a duration such as 24h or 720h, at least 1m`);
    else auth.tokenMaxLifetimeMs = ms;
  }
  const metricsToken = value('FLOTILLA_METRICS_TOKEN');
  if (metricsToken !== undefined) {
    if (metricsToken.length < 16) problems.push('FLOTILLA_METRICS_TOKEN: must be at least 16 characters');
    else auth.metricsToken = metricsToken;
  }
  const limit = value('FLOTILLA_AUTH_FAILURE_LIMIT');
  if (limit !== undefined) {
    if (!/^\d{1,6}$/.test(limit)) problems.push(`FLOTILLA_AUTH_FAILURE_LIMIT=${JSON.stringify(limit)}: expected an integer from 0 (no limit) to 999999`);
    else auth.failureLimit = Number(limit);
  }
  const window = value('FLOTILLA_AUTH_FAILURE_WINDOW');
  if (window !== undefined) {
    const ms = parseDurationMs(window);
    if (ms === undefined || ms < 1000) problems.push(`FLOTILLA_AUTH_FAILURE_WINDOW=${JSON.stringify(window)}: expected a duration such as 1m, at least 1s`);
    else auth.failureWindowMs = ms;
  }
}
