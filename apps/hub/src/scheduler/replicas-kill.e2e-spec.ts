import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { defaultPushModuleOptions, pushModule, RegistryClient } from '@flotilla/oci';
import { harnessEnv } from '../../../../test/harness/env';
import { adminManager, createTenant, pushProject, unique } from '../../../../libs/engine/testdata/harness';
import { createTempDataDir, createTestDatabase, type TestDatabase } from '../../test/databases';
import { GREETER_MODULE_DIR, greeterProjectFiles } from '../../test/push-fixtures';
import { eventually, overlaps } from '../../test/scheduler-fixtures';

// Three compiled hub processes (`npm start`'s entry point) on one PostgreSQL;
// the one running the Target is killed with SIGKILL mid-run. Another takes
// the Target over once the lease expires, and the Run rows prove no two runs
// of the Target overlapped.

jest.setTimeout(180_000);

const mainJs = join(__dirname, '../../../../dist/apps/hub/src/main.js');

interface Proc {
  id: string;
  child: ChildProcess;
  url: Promise<string>;
  exited: Promise<number | null>;
  output(): string;
}

function startHub(id: string, env: Record<string, string>): Proc {
  const dir = createTempDataDir();
  let out = '';
  const child = spawn(process.execPath, [mainJs], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', FLOTILLA_DATA_DIR: dir.dir, FLOTILLA_HUB_ID: id, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  void exited.then(() => dir.cleanup());
  const url = eventually(`${id} to listen`, async () => /listening on (http:\/\/\S+)/.exec(out)?.[1], 30_000);
  return { id, child, url, exited, output: () => out };
}

describe('three hub processes, one killed during a run', () => {
  let db: TestDatabase;
  const procs: Proc[] = [];
  let ns: string;
  const { manager } = adminManager();

  beforeAll(() => {
    if (!existsSync(mainJs)) throw new Error(`${mainJs} is missing: run \`npm run build\` first (npm test does)`);
  });

  afterAll(async () => {
    for (const p of procs) {
      p.child.kill('SIGTERM');
      await p.exited;
    }
    await db?.drop();
    if (ns) await manager.client.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns }).catch(() => undefined);
    await manager.client.connection.close();
  });

  it('converges anyway, and no two runs of the Target overlapped', async () => {
    const host = harnessEnv().registry.host;
    const registry = new RegistryClient();
    const moduleUrl = `oci://${host}/${unique('modules/greeter')}`;
    await pushModule(registry, moduleUrl, GREETER_MODULE_DIR, defaultPushModuleOptions('1.0.0'));
    const repo = `oci://${host}/${unique('projects/greet')}`;
    ns = await createTenant(manager.client, 'kill');
    const digest = await pushProject(registry, repo, greeterProjectFiles(moduleUrl, ns, { cache: true, shout: false }));

    db = await createTestDatabase();
    const adminToken = `adm_${randomBytes(16).toString('hex')}`;
    const env = {
      DATABASE_URL: db.url,
      FLOTILLA_ADMIN_TOKEN: adminToken,
      FLOTILLA_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      FLOTILLA_SCHEDULER_TICK: '100ms',
      FLOTILLA_LEASE_TTL: '3s',
      FLOTILLA_SOURCE_POLL_INTERVAL: '1m',
    };
    for (const id of ['hub-a', 'hub-b', 'hub-c']) procs.push(startHub(id, env));
    const urls = await Promise.all(procs.map((p) => p.url));
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const call = async (url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: await res.json().catch(() => undefined) };
    };
    const kube = harnessEnv().kube;
    expect((await call(urls[0], 'POST', '/api/v1/clusters', { name: 'spoke', mode: 'push', endpoint: { server: kube.server, caData: kube.caData }, credentials: { token: kube.admin.token } })).status).toBe(201);

    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    try {
      expect((await call(urls[1], 'POST', '/api/v1/projects', { name: 'greet', namespace: ns, serviceAccountName: 'deployer', source: { repository: repo, tag: 'latest' }, targets: { names: ['spoke'] } })).status).toBe(201);

      // Kill whoever is running it, while it runs.
      const running = await eventually('a run in progress', async () => (await pg.query(`SELECT id, lease_owner FROM runs WHERE result = 'Running'`)).rows[0] as { id: string; lease_owner: string } | undefined, 30_000);
      const victim = procs.find((p) => p.id === running.lease_owner)!;
      victim.child.kill('SIGKILL');
      await victim.exited;
      const killedAt = Date.now();

      const survivor = urls[procs.indexOf(procs.find((p) => p !== victim)!)];
      const target = await eventually('the Target to converge', async () => {
        const t = (await call(survivor, 'GET', '/api/v1/projects/greet/targets/spoke')).body;
        return t?.phase === 'Ready' ? t : undefined;
      }, 60_000);
      expect(target.lastAppliedRevision).toBe(`latest@${digest}`);

      const runs = (await pg.query(`SELECT id, lease_owner, result, started_at, finished_at FROM runs ORDER BY started_at`)).rows as Array<{ id: string; lease_owner: string; result: string; started_at: Date; finished_at: Date }>;
      const killed = runs.find((r) => r.id === running.id)!;
      expect(killed.result).toBe('Abandoned');
      const takeover = runs.find((r) => r.result === 'Succeeded')!;
      expect(takeover.lease_owner).not.toBe(victim.id);
      expect(takeover.started_at.getTime()).toBeGreaterThanOrEqual(killedAt); // only after the lease expired
      expect(runs.every((r) => r.finished_at !== null)).toBe(true);
      expect(overlaps(runs.map((r) => ({ target: 'greet/spoke', start: r.started_at.getTime(), end: r.finished_at.getTime() })))).toEqual([]);

      const cms = await manager.client.list('v1', 'ConfigMap', { namespace: ns });
      expect(cms.map((c) => c.metadata.name).filter((n) => n.endsWith('-greeting')).sort()).toEqual(['cache-greeting', 'db-greeting', 'web-greeting']);
      const metrics = await Promise.all(urls.filter((u) => u !== urls[procs.indexOf(victim)]).map(async (u) => (await fetch(`${u}/metrics`)).text()));
      expect(metrics.join('\n')).toMatch(/flotilla_scheduler_lease_takeovers_total 1/);
    } finally {
      await pg.end();
    }
  });
});
