import type { INestApplication } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createTempDataDir, createTestDatabase } from '../test/databases';
import { createHubApp, listeningUrl } from './app';
import { defaultHubConfig, type HubConfig, defaultAgentServerConfig } from './config/hub-config';
import { hubMigrations } from './database/migrations';

// The real app, listening on a free loopback port, on each kind of database.
const ADMIN_TOKEN = 'app-spec-admin-token-0123456789';
async function startHub(overrides: Partial<HubConfig>): Promise<{ app: INestApplication; url: string }> {
  const app = await createHubApp({ ...defaultHubConfig(), host: '127.0.0.1', port: 0, logLevel: 'silent', agents: { ...defaultAgentServerConfig('127.0.0.1'), port: 0 }, ...overrides }, { announce: () => undefined });
  await app.listen(0, '127.0.0.1');
  return { app, url: listeningUrl(app) };
}

describe.each([
  ['embedded PGlite', 'pglite'],
  ['the harness PostgreSQL', 'postgres'],
] as const)('hub on %s', (_label, kind) => {
  let app: INestApplication;
  let url: string;
  const cleanups: Array<() => unknown> = [];

  beforeAll(async () => {
    const tmp = createTempDataDir();
    cleanups.push(tmp.cleanup);
    const overrides: Partial<HubConfig> = { dataDir: tmp.dir, adminToken: ADMIN_TOKEN };
    if (kind === 'postgres') {
      const db = await createTestDatabase();
      cleanups.push(db.drop);
      overrides.databaseUrl = db.url;
    }
    ({ app, url } = await startHub(overrides));
  });

  afterAll(async () => {
    await app?.close();
    for (const c of cleanups.reverse()) await c();
  });

  it('answers /healthz', async () => {
    const res = await fetch(`${url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('answers /readyz once the database is reachable', async () => {
    const res = await fetch(`${url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('has run the migrations', async () => {
    const rows = await app.get(DataSource).query('SELECT name FROM migrations ORDER BY id');
    expect(rows.map((r: { name: string }) => r.name)).toEqual(hubMigrations.map((m) => new m().name));
  });

  it('serves Prometheus metrics from its own registry', async () => {
    const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const body = await res.text();
    expect(body).toContain('# TYPE process_cpu_seconds_total counter');
    expect(body).toContain('nodejs_eventloop_lag_seconds');
    // requests are counted by route pattern, not by raw path
    expect(body).toContain('flotilla_hub_http_requests_total{method="GET",route="/healthz",status="200"}');
    // the scheduler's metrics live on the same registry
    expect(body).toContain('# TYPE timoni_instance_reconcile_duration_seconds histogram');
    expect(body).toContain('# TYPE flotilla_scheduler_lease_takeovers_total counter');
  });

  it('reports 503 on /readyz when the database is gone', async () => {
    await app.get(DataSource).destroy();
    const res = await fetch(`${url}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ status: 'unavailable', reason: 'database not reachable' });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});

describe('replicas starting together on one PostgreSQL', () => {
  it('migrate once, register the admin token once, and all become ready', async () => {
    const db = await createTestDatabase();
    const dirs = [createTempDataDir(), createTempDataDir(), createTempDataDir()];
    const adminToken = 'a-shared-admin-token-for-replicas';
    // replicas share their encryption keys, as they must to open each other's sealed values (the agent CA's key at start)
    const encryptionKeys = `k1:${randomBytes(32).toString('base64')}`;
    try {
      const hubs = await Promise.all(dirs.map((d) => startHub({ dataDir: d.dir, databaseUrl: db.url, adminToken, encryptionKeys })));
      try {
        for (const h of hubs) expect((await fetch(`${h.url}/readyz`)).status).toBe(200);
        const ds = hubs[0].app.get(DataSource);
        expect(await ds.query('SELECT count(*)::int AS n FROM migrations')).toEqual([{ n: hubMigrations.length }]);
        expect(await ds.query('SELECT count(*)::int AS n FROM api_tokens')).toEqual([{ n: 1 }]);
      } finally {
        for (const h of hubs) await h.app.close();
      }
    } finally {
      await db.drop();
      for (const d of dirs) d.cleanup();
    }
  });
});

describe('hub start failures', () => {
  it('names the database it could not reach, without its password', async () => {
    const tmp = createTempDataDir();
    try {
      await expect(
        createHubApp({ ...defaultHubConfig(), dataDir: tmp.dir, databaseUrl: 'postgres://hub:s3cret@127.0.0.1:1/none', logLevel: 'silent' }),
      ).rejects.toThrow(/cannot open PostgreSQL at postgres:\/\/hub:\*\*\*@127\.0\.0\.1:1\/none/);
    } finally {
      tmp.cleanup();
    }
  });
});
