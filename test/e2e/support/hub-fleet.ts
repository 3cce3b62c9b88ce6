import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { Client } from 'pg';
import { harnessEnv } from '../../harness/env';
import { HubProcess } from './hub-process';
import { adminCall, type ApiResponse } from './admin-call';

/** Scheduler settings for the suites: short ticks, leases and polls (env names of apps/hub HubConfig). */
export interface FleetTiming {
  tick: string;
  leaseTtl: string;
  sourcePoll: string;
  /** FLOTILLA_HEALTH_RECHECK_INTERVAL: for suites that wait on a Deployment becoming available (default the hub's 30s) */
  healthRecheck?: string;
}

export function defaultFleetTiming(): FleetTiming {
  return { tick: '200ms', leaseTtl: '3s', sourcePoll: '1s' };
}

export type { ApiResponse };

/**
 * Hub processes on one fresh database of the harness PostgreSQL, sharing an
 * admin token and encryption keys as replicas must.
 */
export class HubFleet {
  readonly hubs: HubProcess[] = [];
  readonly adminToken = `adm_${randomBytes(16).toString('hex')}`;
  private readonly env: Record<string, string>;
  private failed = false;

  private constructor(
    readonly databaseUrl: string,
    private readonly databaseName: string,
    timing: FleetTiming,
    extraEnv: Record<string, string>,
  ) {
    this.env = {
      DATABASE_URL: databaseUrl,
      FLOTILLA_ADMIN_TOKEN: this.adminToken,
      FLOTILLA_ENCRYPTION_KEYS: `e2e1:${randomBytes(32).toString('base64')}`,
      FLOTILLA_SCHEDULER_TICK: timing.tick,
      FLOTILLA_LEASE_TTL: timing.leaseTtl,
      FLOTILLA_SOURCE_POLL_INTERVAL: timing.sourcePoll,
      ...(timing.healthRecheck ? { FLOTILLA_HEALTH_RECHECK_INTERVAL: timing.healthRecheck } : {}),
      FLOTILLA_SHUTDOWN_GRACE: '2s',
      LOG_LEVEL: 'info',
      ...extraEnv,
    };
  }

  /** Creates the database and starts `ids.length` hubs on it, resolving once every one listens. */
  static async start(ids: string[], timing: FleetTiming = defaultFleetTiming(), extraEnv: Record<string, string> = {}): Promise<HubFleet> {
    const name = `e2e_${randomBytes(6).toString('hex')}`;
    const pg = harnessEnv().postgres;
    await withClient(pg.url, (c) => c.query(`CREATE DATABASE "${name}"`));
    const url = new URL(pg.url);
    url.pathname = `/${name}`;
    const fleet = new HubFleet(url.toString(), name, timing, extraEnv);
    for (const id of ids) fleet.hubs.push(new HubProcess(id, fleet.env));
    try {
      await Promise.all(fleet.hubs.map((h) => h.url));
    } catch (err) {
      await fleet.stop();
      throw err;
    }
    return fleet;
  }

  /** Starts one more hub on the same database, with `env` on top of the fleet's (stopped with the others). */
  async addHub(id: string, env: Record<string, string>): Promise<HubProcess> {
    const hub = new HubProcess(id, { ...this.env, ...env });
    this.hubs.push(hub);
    await hub.url;
    return hub;
  }

  /** Starts hub `id` again (after a kill), on the same database and settings; resolves once it listens. */
  async restart(id: string): Promise<HubProcess> {
    const old = this.hub(id);
    if (old.running) throw new Error(`hub ${id} is still running: kill or stop it first`);
    const fresh = new HubProcess(id, this.env);
    this.hubs[this.hubs.indexOf(old)] = fresh;
    await fresh.url;
    return fresh;
  }

  hub(id: string): HubProcess {
    const h = this.hubs.find((x) => x.id === id);
    if (!h) throw new Error(`no hub ${id} in this fleet (${this.hubs.map((x) => x.id).join(', ')})`);
    return h;
  }

  /** A REST call to the first hub still running, as admin. */
  async call(method: string, path: string, body?: unknown, via?: HubProcess): Promise<ApiResponse> {
    const hub = via ?? this.hubs.find((h) => h.running);
    if (!hub) throw new Error('every hub of the fleet has exited');
    return adminCall(await hub.url, this.adminToken, method, path, body);
  }

  /** Like call(), but fails naming the route when the status is not `expected`. */
  async expectCall(expected: number, method: string, path: string, body?: unknown): Promise<ApiResponse> {
    const res = await this.call(method, path, body);
    if (res.status !== expected) throw new Error(`${method} ${path}: expected HTTP ${expected}, got ${res.status}: ${res.text.slice(0, 2000)}`);
    return res;
  }

  /** The hubs' log tails, to append to a failure. */
  logTails(lines = 60): string {
    return this.hubs.map((h) => `----- hub ${h.id} (pid ${h.pid}, ${h.running ? 'running' : 'exited'}; full log ${h.logFile}) -----\n${h.tail(lines)}`).join('\n');
  }

  /**
   * Wraps a test body: a failure gets the hubs' log tails appended, and the
   * hubs' data directories (with their full logs) are kept for a look.
   */
  guard(body: () => Promise<void>): () => Promise<void> {
    return async () => {
      try {
        await body();
      } catch (err) {
        this.failed = true;
        const e = err instanceof Error ? err : new Error(String(err));
        e.message = `${e.message}\n\n${this.logTails()}`;
        throw e;
      }
    };
  }

  /** Stops every hub (SIGTERM), drops the database, removes the data directories unless a test failed. */
  async stop(): Promise<void> {
    await Promise.all(this.hubs.map((h) => h.stop()));
    await withClient(harnessEnv().postgres.url, (c) => c.query(`DROP DATABASE IF EXISTS "${this.databaseName}" WITH (FORCE)`)).catch(() => undefined);
    if (!this.failed) for (const h of this.hubs) rmSync(h.dataDir, { recursive: true, force: true });
  }
}

async function withClient<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}
