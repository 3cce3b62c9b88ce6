import { randomBytes, X509Certificate } from 'node:crypto';
import { cpSync, existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { RegistryClient } from '@flotilla/oci';
import { installAgent } from '../../apps/agent/test/install';
import { harnessEnv } from '../harness/env';
import { freePort } from '../harness/ports';
import { testDir } from '../harness/temp-dirs';
import { shopProjectFiles } from './fixtures/projects';
import { startConnectedAgent, type ConnectedAgent } from './support/connected-agent';
import { eventually } from './support/eventually';
import { HubApi } from './support/hub-api';
import { HubProcess } from './support/hub-process';
import { adminStatement, createDatabase, databaseUrl, pgDump, pgRestore, psql } from './support/pg-tools';
import { projectRepository, publishProject, publishWebapp } from './support/publish';
import { configMapData } from './support/shop';
import { adminClient, deleteNamespaces, prepareTenant, uniqueName } from './support/spoke';

// Backup and restore as docs/operations.md tells an operator to do it, with
// a push cluster and a connected agent cluster (the compiled agent as a
// process): PostgreSQL with pg_dump while the hub runs and pg_restore into a
// fresh database; the embedded database by stopping the hub and copying
// FLOTILLA_DATA_DIR. The restored hub gets the same encryption keys and the
// same agents' port, and nothing else: the push cluster's sealed credentials
// open, the agent reconnects on its own with the certificate it had, a new
// agent gets a certificate from the restored CA, and the history is whole.

jest.setTimeout(300_000);

const kube = adminClient();
const registry = new RegistryClient();
let moduleUrl: string;
const hubs: HubProcess[] = [];
const agents: ConnectedAgent[] = [];
const namespaces: string[] = [];
const databases: string[] = [];

beforeAll(async () => {
  // the Project CRD, in which the agents write their assignments (as the other suites leave it)
  await installAgent(kube);
  moduleUrl = await publishWebapp(registry);
});

afterAll(async () => {
  for (const a of agents) await a.process.stop();
  for (const h of hubs) await h.stop();
  for (const h of hubs) rmSync(h.dataDir, { recursive: true, force: true });
  for (const db of databases) await adminStatement(harnessEnv().postgres.url, `DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`).catch(() => undefined);
  await deleteNamespaces(kube, namespaces);
  await kube.connection.close();
});

/** What every hub of one test shares: the admin token, the encryption keys and the agents' port. */
async function sharedEnv(): Promise<{ adminToken: string; env: Record<string, string> }> {
  const adminToken = `adm_${randomBytes(16).toString('hex')}`;
  return {
    adminToken,
    env: {
      FLOTILLA_ADMIN_TOKEN: adminToken,
      FLOTILLA_ENCRYPTION_KEYS: `backup1:${randomBytes(32).toString('base64')}`,
      // the address in the agents' manifests: the restored hub listens where the old one did
      FLOTILLA_AGENT_PORT: String(await freePort()),
      FLOTILLA_SCHEDULER_TICK: '200ms',
      FLOTILLA_LEASE_TTL: '3s',
      FLOTILLA_SOURCE_POLL_INTERVAL: '1s',
      FLOTILLA_SHUTDOWN_GRACE: '2s',
      LOG_LEVEL: 'info',
    },
  };
}

function startHub(id: string, env: Record<string, string>, adminToken: string): HubApi {
  const hub = new HubProcess(id, env);
  hubs.push(hub);
  return new HubApi(hub, adminToken);
}

/** A test body whose failure carries the tails of the hubs' and agents' output. */
function guard(body: () => Promise<void>): () => Promise<void> {
  return async () => {
    try {
      await body();
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      const hubTails = hubs.map((h) => `----- hub ${h.id} (${h.running ? 'running' : 'exited'}; ${h.logFile}) -----\n${h.tail(40)}`);
      const agentTails = agents.map((a, i) => `----- agent ${i} -----\n${a.process.output().split('\n').slice(-30).join('\n')}`);
      e.message = `${e.message}\n\n${[...hubTails, ...agentTails].join('\n')}`;
      throw e;
    }
  };
}

interface RunRow {
  id: string;
  revision: string | null;
  result: string;
  startedAt: string;
}
interface EventRow {
  cluster: string | null;
  type: string;
  reason: string;
  message: string;
  time: string;
}
interface History {
  runs: Record<string, RunRow[]>;
  events: EventRow[];
}

async function history(api: HubApi, clusters: string[]): Promise<History> {
  const runs: Record<string, RunRow[]> = {};
  for (const c of clusters) {
    const items = (await api.expectCall(200, 'GET', `/api/v1/projects/shop/targets/${c}/runs?limit=100`)).body.items as RunRow[];
    runs[c] = items.map(({ id, revision, result, startedAt }) => ({ id, revision, result, startedAt }));
  }
  const events = ((await api.expectCall(200, 'GET', '/api/v1/projects/shop/events?limit=100')).body.items as EventRow[]).map(({ cluster, type, reason, message, time }) => ({ cluster, type, reason, message, time }));
  return { runs, events };
}

function readyOn(api: HubApi, cluster: string, revision: string): Promise<unknown> {
  const target = async () => (await api.expectCall(200, 'GET', `/api/v1/projects/shop/targets/${cluster}`)).body;
  return eventually(`shop to be Ready on ${cluster} at ${revision}`, async () => {
    const t = await target();
    return t.phase === 'Ready' && t.lastAppliedRevision === revision ? t : undefined;
  }, { timeoutMs: 90_000, observe: target });
}

/** The fleet before the backup: a push and an agent cluster, one Project Ready on both. */
interface Fleet {
  ns: string;
  repo: string;
  edge: ConnectedAgent;
  edgeCert: X509Certificate;
  before: History;
}

async function convergeFleet(api: HubApi): Promise<Fleet> {
  const ns = uniqueName('e2e-bak');
  namespaces.push(ns, `${ns}-spoke-1`, `${ns}-edge-1`, `${ns}-edge-2`);
  await prepareTenant(kube, { namespace: ns, serviceAccount: 'deployer', instanceNamespaces: [`${ns}-spoke-1`, `${ns}-edge-1`, `${ns}-edge-2`] });
  const k = harnessEnv().kube;
  await api.expectCall(201, 'POST', '/api/v1/clusters', { name: 'spoke-1', group: 'staging', mode: 'push', endpoint: { server: k.server, caData: k.caData }, credentials: { token: k.admin.token } });
  const edge = await startConnectedAgent(api, kube, { cluster: 'edge-1', group: 'edge', namespace: ns });
  agents.push(edge);
  const repo = projectRepository();
  const v1 = await publish(repo, ns, 'before the backup');
  await api.expectCall(201, 'POST', '/api/v1/projects', { name: 'shop', namespace: ns, serviceAccountName: 'deployer', source: { repository: repo, tag: 'latest' }, targets: { names: ['spoke-1', 'edge-1'] } });
  await readyOn(api, 'spoke-1', v1);
  await readyOn(api, 'edge-1', v1);
  const edgeCert = await edge.certificate();
  if (!edgeCert) throw new Error('edge-1 is Ready but its agent kept no certificate');
  const before = await history(api, ['spoke-1', 'edge-1']);
  for (const c of ['spoke-1', 'edge-1']) expect(before.runs[c].some((r) => r.revision === v1 && r.result === 'Succeeded')).toBe(true);
  expect(before.events.length).toBeGreaterThan(0);
  return { ns, repo, edge, edgeCert, before };
}

async function publish(repo: string, ns: string, message: string): Promise<string> {
  // each cluster's instances in a namespace of their own: the push cluster and the agents share one API server
  const files = shopProjectFiles({ moduleUrl, moduleVersion: '1.0.0', namespace: `${ns}-\\(_cluster)`, infra: ['db'], message });
  return `latest@${await publishProject(registry, repo, files)}`;
}

/** What must hold on the restored hub. */
async function expectFleetCarriesOn(api: HubApi, fleet: Fleet, restoredAt: number): Promise<void> {
  // history: every run and event from before is there, as it was
  const after = await history(api, ['spoke-1', 'edge-1']);
  for (const c of ['spoke-1', 'edge-1']) expect(after.runs[c]).toEqual(expect.arrayContaining(fleet.before.runs[c]));
  expect(after.events).toEqual(expect.arrayContaining(fleet.before.events));

  // the push cluster's credentials open: the hub reaches the API server with them
  const checked = (await api.expectCall(200, 'POST', '/api/v1/clusters/spoke-1/check')).body;
  expect(checked.status).toMatchObject({ reachable: true, error: null });

  // the agent comes back on its own: same process, same certificate, no second registration
  await eventually('edge-1 connected to the restored hub', async () => {
    const agent = (await api.expectCall(200, 'GET', '/api/v1/clusters/edge-1')).body.agent;
    // connected since the restored hub started, not a state the backup carried
    return agent.connected && Date.parse(agent.since) >= restoredAt ? true : undefined;
  }, {
    timeoutMs: 60_000,
    observe: async () => (await api.call('GET', '/api/v1/clusters/edge-1')).body,
  });
  expect(fleet.edge.process.child.exitCode).toBeNull();
  expect((await fleet.edge.certificate())?.fingerprint256).toBe(fleet.edgeCert.fingerprint256);
  expect(fleet.edge.process.logs().filter((l) => l.msg === 'registered with the hub')).toHaveLength(1);

  // a new revision reaches both: applied with the push credentials, assigned to the agent
  const v2 = await publish(fleet.repo, fleet.ns, 'after the restore');
  await readyOn(api, 'spoke-1', v2);
  await readyOn(api, 'edge-1', v2);
  expect((await configMapData(kube, `${fleet.ns}-spoke-1`))['web-config']).toEqual({ message: 'after the restore', cluster: 'spoke-1' });
  expect((await configMapData(kube, `${fleet.ns}-edge-1`))['web-config']).toEqual({ message: 'after the restore', cluster: 'edge-1' });

  // the restored agent CA signs: a new agent cluster registers and gets a certificate from it
  const edge2 = await startConnectedAgent(api, kube, { cluster: 'edge-2', group: 'edge', namespace: fleet.ns });
  agents.push(edge2);
  expect(edge2.hub.hubCa).toBe(fleet.edge.hub.hubCa);
  const cert = await eventually('edge-2 registered', async () => edge2.certificate(), { timeoutMs: 60_000 });
  expect(cert.checkIssued(new X509Certificate(fleet.edge.hub.hubCa))).toBe(true);
  expect(cert.subject).toContain('CN=edge-2');
  await eventually('edge-2 connected', async () => ((await api.expectCall(200, 'GET', '/api/v1/clusters/edge-2')).body.agent.connected ? true : undefined), { timeoutMs: 60_000 });
}

describe('backup and restore', () => {
  it('PostgreSQL: pg_dump while the hub runs, pg_restore into a fresh database, a new hub with the same keys carries the fleet on', () =>
    guard(async () => {
      const { adminToken, env } = await sharedEnv();
      const server = harnessEnv().postgres.url;
      const original = `bak_${randomBytes(6).toString('hex')}`;
      databases.push(original);
      await adminStatement(server, `CREATE DATABASE "${original}"`);
      const first = startHub('hub-before', { ...env, DATABASE_URL: databaseUrl(server, original) }, adminToken);
      const fleet = await convergeFleet(first);

      const dump = join(testDir('flotilla-backup-'), 'flotilla.dump');
      await pgDump(databaseUrl(server, original), dump);
      await first.hub.stop();
      // the original is gone: all the new hub has is the dump
      await adminStatement(server, `DROP DATABASE "${original}" WITH (FORCE)`);

      const restored = `bak_${randomBytes(6).toString('hex')}`;
      databases.push(restored);
      await createDatabase(server, restored);
      await pgRestore(databaseUrl(server, restored), dump);
      // the agents' streams in the dump are gone with the hub that held them (docs/operations.md)
      await psql(databaseUrl(server, restored), 'UPDATE agent_links SET connected = false WHERE connected');
      // without the keys the backup is of no use: a hub with others refuses to start and names the one it lacks
      const keyless = startHub('hub-other-keys', { ...env, DATABASE_URL: databaseUrl(server, restored), FLOTILLA_ENCRYPTION_KEYS: `other:${randomBytes(32).toString('base64')}` }, adminToken);
      await expect(keyless.hub.url).rejects.toThrow('key "backup1" is not in the keyring');
      expect(await keyless.hub.exited).not.toBe(0);
      const restoredAt = Date.now();
      const second = startHub('hub-restored', { ...env, DATABASE_URL: databaseUrl(server, restored) }, adminToken);
      await second.hub.url;
      await expectFleetCarriesOn(second, fleet, restoredAt);
    })());

  it('embedded database: stop the hub, copy FLOTILLA_DATA_DIR, a new hub on the copy with the same keys carries the fleet on', () =>
    guard(async () => {
      const { adminToken, env } = await sharedEnv();
      const first = startHub('hub-embedded', env, adminToken);
      const fleet = await convergeFleet(first);

      await first.hub.stop();
      // a clean stop removes the lock beside the database: the files are closed and whole
      expect(await first.hub.exited).toBe(0);
      expect(existsSync(join(first.hub.dataDir, 'pgdata.lock'))).toBe(false);
      const copy = join(testDir('flotilla-backup-'), 'flotilla');
      cpSync(first.hub.dataDir, copy, { recursive: true, preserveTimestamps: true });
      expect(readdirSync(copy)).toContain('pgdata');
      // the original is moved away: all the new hub has is the copy
      renameSync(first.hub.dataDir, join(testDir('flotilla-original-'), 'flotilla'));

      const restoredAt = Date.now();
      const second = startHub('hub-embedded-restored', { ...env, FLOTILLA_DATA_DIR: copy }, adminToken);
      await second.hub.url;
      await expectFleetCarriesOn(second, fleet, restoredAt);
    })());
});
