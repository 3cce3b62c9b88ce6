import type { INestApplication } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createHubApp, type HubAppOptions, listeningUrl } from '../src/app';
import { ADMIN_TOKEN_FILE } from '../src/auth/admin-token-file';
import { defaultCdeventsConfig } from '../src/config/cdevents-config';
import { defaultEgressConfig } from '../src/config/egress-config';
import { defaultAgentServerConfig, defaultAuthConfig, defaultHubConfig, defaultSchedulerConfig, type HubConfig } from '../src/config/hub-config';
import { createTempDataDir, createTestDatabase, seedPgliteDataDir } from './databases';

export type DatabaseKind = 'pglite' | 'postgres';
export const DATABASE_KINDS = [
  ['embedded PGlite', 'pglite'],
  ['the harness PostgreSQL', 'postgres'],
] as const;

export interface TestHub {
  app: INestApplication;
  url: string;
  config: HubConfig;
  adminToken: string;
  /** every JSON log line the hub wrote */
  logs: string[];
  /** lines printed for the operator */
  announced: string[];
  /** every response body this helper received, to assert secrets never came back */
  responses: string[];
  // Response bodies are explored field by field in assertions; a type per route would only restate the DTOs.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  call(method: string, path: string, opts?: { token?: string | null; body?: unknown; rawBody?: string }): Promise<{ status: number; body: any; text: string }>;
  /** stops the app but keeps its database, for restarts */
  stop(): Promise<void>;
  /** stops and removes everything */
  close(): Promise<void>;
}

/** The real hub on a free loopback port, with its own database and captured logs. */
export async function startTestHub(kind: DatabaseKind, overrides: Partial<HubConfig> = {}, options: Pick<HubAppOptions, 'scheduler' | 'clock' | 'interactive'> = {}): Promise<TestHub> {
  const tmp = createTempDataDir();
  const db = kind === 'postgres' ? await createTestDatabase() : undefined;
  if (kind === 'pglite') await seedPgliteDataDir(tmp.dir);
  const config: HubConfig = {
    ...defaultHubConfig(),
    host: '127.0.0.1',
    port: 0,
    dataDir: tmp.dir,
    databaseUrl: db?.url,
    logLevel: 'info',
    adminToken: `adm_${randomBytes(16).toString('hex')}`,
    // API suites watch Targets stay as the API left them; scheduler suites turn it on
    scheduler: { ...defaultSchedulerConfig(), enabled: false },
    // suites drive CDEvents delivery by hand (deliverDue) or turn it on
    cdevents: { ...defaultCdeventsConfig(), delivery: false },
    // a free port: suites run hubs side by side
    agents: { ...defaultAgentServerConfig('127.0.0.1'), port: 0 },
    // suites (and the fuzzer) send wrong tokens by the dozen from one address; the limiter's own specs turn it on
    auth: { ...defaultAuthConfig(), failureLimit: 0 },
    // the harness's API server, registries and sinks listen on loopback
    egress: { ...defaultEgressConfig(), allowLoopback: true },
    ...overrides,
  };
  const hub = await launch(config, options);
  return {
    ...hub,
    async close() {
      await hub.stop();
      await db?.drop();
      tmp.cleanup();
    },
  };
}

/** Starts a hub on an existing configuration (e.g. to restart one on the same database). */
export async function launch(config: HubConfig, options: Pick<HubAppOptions, 'scheduler' | 'clock' | 'interactive'> = {}): Promise<Omit<TestHub, 'close'> & { close?: never }> {
  const logs: string[] = [];
  const announced: string[] = [];
  const responses: string[] = [];
  const logDestination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logs.push(...chunk.toString().split('\n').filter(Boolean));
      cb();
    },
  });
  const app = await createHubApp(config, { interactive: false, ...options, logDestination: logDestination as never, announce: (l) => announced.push(l) });
  try {
    await app.listen(0, '127.0.0.1');
  } catch (err) {
    await app.close().catch(() => undefined); // release the database a failed start opened
    throw err;
  }
  const url = listeningUrl(app);
  // a generated first token is in the data dir's admin-token file (announced by path)
  const tokenFile = join(config.dataDir, ADMIN_TOKEN_FILE);
  const adminToken = config.adminToken ?? (announced.length > 0 && existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : '');
  return {
    app,
    url,
    config,
    adminToken,
    logs,
    announced,
    responses,
    async call(method, path, opts = {}) {
      const token = opts.token === undefined ? adminToken : opts.token;
      const headers: Record<string, string> = {};
      if (token !== null) headers.authorization = `Bearer ${token}`;
      let body: string | undefined;
      if (opts.rawBody !== undefined || opts.body !== undefined) {
        headers['content-type'] = 'application/json';
        body = opts.rawBody ?? JSON.stringify(opts.body);
      }
      const res = await fetch(`${url}${path}`, { method, headers, body });
      const text = await res.text();
      responses.push(text);
      // an unexpected failure: say why where CI shows it (the hub's log stays in memory otherwise)
      if (res.status === 500) console.error(`${method} ${path} answered 500; the hub's errors:\n${logs.filter((l) => /"level":(50|60)/.test(l)).slice(-5).join('\n')}`);
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, body: parsed, text };
    },
    async stop() {
      await app.close();
    },
  };
}
