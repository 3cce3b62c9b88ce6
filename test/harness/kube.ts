import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { kubeRequest } from './kube-http';
import { startControllers, type ClusterProcess, type ControllerBinaries } from './kube-controllers';
import { createFakeNodes, nodesReady } from './kube-nodes';
import { KwokWatchdog, type KwokWatchdogOptions } from './kwok-watchdog';
import { writeClientCertificate, writeKubePki } from './kube-pki';
import { writeKubeconfig } from './kubeconfig';
import { freePort } from './ports';
import { processRssBytes } from './process-rss';
import { ServiceStartError, spawnLogged, stopProcess, waitUntil } from './process';
import type { KubeCertIdentity, KubeEndpoint, KubeIdentity, RunningService } from './types';

/** How startKube starts and stops a cluster. */
export interface KubeOptions {
  /** how long the whole cluster (etcd, API server, controllers, Ready nodes) may take to start */
  startTimeoutMs: number;
  /** how long stop() waits after SIGTERM before SIGKILL, per process */
  stopGraceMs: number;
  /** binaries to run; kubeBinaries() when absent */
  binaries?: KubeBinaries;
  /**
   * Start kube-controller-manager, kube-scheduler and kwok beside the API
   * server, so workloads roll out on fake nodes. False gives a bare API server.
   */
  controllers: boolean;
  /** fake nodes kwok plays the kubelet of (with controllers only) */
  nodes: number;
  /** let the processes outlive this one (a demo started by a script that exits); stop them by pid */
  detached?: boolean;
  /** when the watchdog restarts a stuck kwok (with controllers, not detached); DEFAULT_KWOK_WATCHDOG when absent */
  kwokWatchdog?: KwokWatchdogOptions;
}

export function defaultKubeOptions(): KubeOptions {
  return { startTimeoutMs: 120_000, stopGraceMs: 5_000, controllers: true, nodes: 3 };
}

export interface KubeBinaries extends ControllerBinaries {
  kubeApiserver: string;
  etcd: string;
}

/** A started cluster: its endpoint, its processes and the figures of its start. */
export interface RunningKube extends RunningService<KubeEndpoint> {
  /** state, certificates and kubeconfigs */
  dir: string;
  /** the component kubeconfigs and `admin.kubeconfig` (system:masters, client certificate) */
  kubeconfigs: Record<string, string>;
  /** every process of the cluster, by name, as started (a restarted kwok has another pid) */
  pids: Record<string, number>;
  /** wall time from the call until everything was ready */
  startMs: number;
  /** resident memory of each process now, in bytes */
  rss(): Record<string, number>;
  /** restarts kwok when it stops beating its nodes (with controllers, not detached) */
  watchdog?: KwokWatchdog;
}

// test/harness in the sources, dist/test/harness once compiled
const repoFile = (path: string) =>
  [resolve(__dirname, '../..'), resolve(__dirname, '../../..')].map((root) => join(root, path)).find((file) => existsSync(file)) ??
  resolve(__dirname, '..', path.replace(/^test\//, ''));
const binariesFile = repoFile('test/kube-apiserver/.binaries.json');
/** The kwok stages the harness clusters run with (see the file's comments). */
export const kwokStagesFile = repoFile('test/kube-apiserver/kwok/stages.yaml');

const binaryEnv: Record<keyof KubeBinaries, string> = {
  kubeApiserver: 'KUBE_APISERVER_BIN',
  etcd: 'ETCD_BIN',
  kubeControllerManager: 'KUBE_CONTROLLER_MANAGER_BIN',
  kubeScheduler: 'KUBE_SCHEDULER_BIN',
  kwok: 'KWOK_BIN',
};

/** KUBE_APISERVER_BIN, ETCD_BIN, … (see binaryEnv), else what test/kube-apiserver/build.mjs recorded. */
export function kubeBinaries(): KubeBinaries {
  const recorded: Partial<KubeBinaries> = existsSync(binariesFile) ? JSON.parse(readFileSync(binariesFile, 'utf8')) : {};
  const found = Object.fromEntries(
    Object.entries(binaryEnv).map(([key, env]) => [key, process.env[env] || recorded[key as keyof KubeBinaries]]),
  );
  for (const [name, path] of Object.entries(found)) {
    if (!path || !existsSync(path)) {
      throw new Error(
        `${name} binary not found (${path ?? `no ${binariesFile}`}): run \`npm run build:test\` ` +
          `(or node test/kube-apiserver/build.mjs), or set ${Object.values(binaryEnv).join(', ')}`,
      );
    }
  }
  return found as unknown as KubeBinaries;
}

/** waitUntil against one deadline shared by every step of the start. */
function waitFor(name: string, child: ChildProcess, logFile: string, deadline: number, ready: () => Promise<boolean>): Promise<void> {
  return waitUntil(name, child, logFile, ready, Math.max(deadline - Date.now(), 1));
}

function identity(user: string, groups: string[]): KubeIdentity {
  return { user, groups, token: randomBytes(24).toString('hex') };
}

async function certIdentity(dir: string, user: string, groups: string[]): Promise<KubeCertIdentity> {
  const cert = await writeClientCertificate(dir, user, groups);
  return { user, groups, clientCertificateData: cert.certData, clientKeyData: cert.keyData };
}

/** Starts etcd and adds it to `procs` at once, so a failed start can still stop it. */
async function startEtcd(bin: string, workDir: string, dir: string, deadline: number, procs: ClusterProcess[], spawnOptions: SpawnOptions): Promise<string> {
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const logFile = join(workDir, 'etcd.log');
  const child = spawnLogged(bin, [
    '--name=flotilla',
    `--data-dir=${join(dir, 'etcd-data')}`,
    `--listen-client-urls=${url}`,
    `--advertise-client-urls=${url}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=flotilla=${peer}`,
    '--log-level=warn',
    // test data is disposable: skipping fsync makes every write fast
    '--unsafe-no-fsync',
    // a lone member elects itself after one election timeout: keep it short
    '--heartbeat-interval=10',
    '--election-timeout=50',
  ], logFile, spawnOptions);
  procs.push({ name: 'etcd', child, logFile });
  await waitFor('etcd', child, logFile, deadline, async () => {
    const res = await fetch(`${url}/health`);
    return res.ok && ((await res.json()) as { health?: string }).health === 'true';
  });
  return url;
}

function apiserverArgs(dir: string, port: number, etcdUrl: string, pki: Awaited<ReturnType<typeof writeKubePki>>): string[] {
  return [
    `--etcd-servers=${etcdUrl}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${port}`,
    `--cert-dir=${dir}`,
    `--tls-cert-file=${pki.servingCert}`,
    `--tls-private-key-file=${pki.servingKey}`,
    `--client-ca-file=${pki.caCert}`,
    `--token-auth-file=${join(dir, 'tokens.csv')}`,
    '--authorization-mode=RBAC',
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${pki.serviceAccountPub}`,
    `--service-account-signing-key-file=${pki.serviceAccountKey}`,
    '--service-cluster-ip-range=10.96.0.0/16',
    '--allow-privileged=true',
    // No kubelets, no endpoints of its own, few clients: skip the machinery for them.
    '--enable-priority-and-fairness=false',
    '--endpoint-reconciler-type=none',
    '--profiling=false',
    '--shutdown-delay-duration=0s',
  ];
}

/**
 * Starts etcd and a real kube-apiserver on free loopback ports, and (unless
 * `controllers: false`) kube-controller-manager, kube-scheduler and kwok with
 * `nodes` fake nodes, so Deployments roll out, Jobs complete, namespaces
 * terminate and garbage is collected. State lives in `workDir/kube`, logs in
 * `workDir/<process>.log`. Resolves once the API server is ready, the
 * controllers answer /healthz, the `default` ServiceAccount exists and every
 * fake node is Ready.
 * Upstream sleeps 2 s in the first create of a custom resource within 2 s of
 * its CRD becoming Established (for HA servers): create CRDs early, once.
 */
export async function startKube(workDir: string, options: KubeOptions = defaultKubeOptions()): Promise<RunningKube> {
  const started = Date.now();
  const bins = options.binaries ?? kubeBinaries();
  const spawnOptions: SpawnOptions = options.detached ? { detached: true } : {};
  // state in workDir/kube, logs beside the other services' in workDir
  const dir = join(resolve(workDir), 'kube');
  mkdirSync(dir, { recursive: true });
  const deadline = Date.now() + options.startTimeoutMs;
  const admin = identity('flotilla-admin', ['system:masters']);
  const unprivileged = identity('flotilla-nobody', []);
  // token,user,uid[,"group1,group2"]; an empty group column would name a group ""
  const line = (i: KubeIdentity) => [i.token, i.user, i.user, ...(i.groups.length ? [`"${i.groups.join(',')}"`] : [])].join(',');
  writeFileSync(join(dir, 'tokens.csv'), `${line(admin)}\n${line(unprivileged)}\n`, { mode: 0o600 });
  const procs: ClusterProcess[] = [];
  let watchdog: KwokWatchdog | undefined;
  const stop = async () => {
    await watchdog?.stop();
    // controllers, then the API server, then etcd: none logs errors about one already gone
    for (const p of [...procs].reverse()) await stopProcess(p.child, options.stopGraceMs);
  };
  try {
    // openssl and etcd's start each take a few hundred ms: overlap them
    const [etcdStart, pkiStart] = await Promise.allSettled([startEtcd(bins.etcd, workDir, dir, deadline, procs, spawnOptions), writeKubePki(dir)]);
    if (etcdStart.status === 'rejected') throw etcdStart.reason;
    if (pkiStart.status === 'rejected') throw pkiStart.reason;
    const [etcdUrl, pki] = [etcdStart.value, pkiStart.value];
    const certAdmin = await certIdentity(dir, 'flotilla-cert-admin', ['system:masters']);
    const port = await freePort();
    const logFile = join(workDir, 'kube-apiserver.log');
    const child = spawnLogged(bins.kubeApiserver, apiserverArgs(dir, port, etcdUrl, pki), logFile, spawnOptions);
    procs.push({ name: 'kube-apiserver', child, logFile });

    const endpoint: KubeEndpoint = { server: `https://127.0.0.1:${port}`, caData: pki.caData, version: '', admin, unprivileged, certAdmin };
    const kubeconfigs = { admin: join(dir, 'admin.kubeconfig') };
    writeKubeconfig(kubeconfigs.admin, 'flotilla', endpoint.server, pki.caData, certAdmin);
    const get = (path: string) => kubeRequest(endpoint, path, { token: admin.token, timeoutMs: 5_000 });
    const ok = (path: string) => async () => (await get(path)).status === 200;
    const wait = (ready: () => Promise<boolean>) => waitFor('kube-apiserver', child, logFile, deadline, ready);
    // The priority class hook polls once a second; the classes appear about a
    // second later, before the scheduler needs them for the first Pod.
    await wait(async () => (await get('/readyz?exclude=poststarthook/scheduling/bootstrap-system-priority-classes')).text === 'ok');
    await wait(ok('/api/v1/namespaces/default')); // made by a controller shortly after ready
    await wait(ok('/apis/rbac.authorization.k8s.io/v1/clusterroles/admin')); // RBAC bootstrap roles
    const version = await get('/version');
    if (version.status !== 200) throw new ServiceStartError('kube-apiserver', `/version answered ${version.status}`, logFile);
    endpoint.version = (version.json as { gitVersion: string }).gitVersion;

    if (options.controllers) {
      const first = procs.length;
      await startControllers(bins, workDir, dir, endpoint.server, pki, kwokStagesFile, procs, spawnOptions);
      for (const p of procs.slice(first)) kubeconfigs[p.name as keyof typeof kubeconfigs] = join(dir, `${p.name}.kubeconfig`);
      const nodes = await createFakeNodes(endpoint, options.nodes);
      const [kcm, , kwok] = procs.slice(first);
      await Promise.all([
        ...procs.slice(first).filter((p) => p.ready).map((p) => waitFor(p.name, p.child, p.logFile, deadline, p.ready!)),
        // the service account controller runs: Pods can be admitted in new namespaces
        waitFor(kcm.name, kcm.child, kcm.logFile, deadline, ok('/api/v1/namespaces/default/serviceaccounts/default')),
        waitFor(kwok.name, kwok.child, kwok.logFile, deadline, () => nodesReady(endpoint, nodes)),
      ]);
      // a detached cluster outlives this process, which its watchdog could not
      if (!options.detached) {
        const log = (line: string) => process.stderr.write(`harness: ${line}\n`);
        watchdog = new KwokWatchdog(endpoint, nodes, kwok, log, options.kwokWatchdog).start();
      }
    }
    const pids = Object.fromEntries(procs.map((p) => [p.name, p.child.pid ?? 0]));
    if (options.detached) for (const p of procs) p.child.unref();
    const rss = () => Object.fromEntries(procs.map((p) => [p.name, processRssBytes(p.child.pid ?? 0)]));
    return { endpoint, logFile, stop, dir, kubeconfigs, pids, startMs: Date.now() - started, rss, watchdog };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** One log line: start time and resident memory per process, e.g. for the harness's start. */
export function describeKube(name: string, kube: RunningKube): string {
  const rss = kube.rss();
  const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;
  const total = Object.values(rss).reduce((a, b) => a + b, 0);
  const each = Object.entries(rss).map(([proc, bytes]) => `${proc} ${mb(bytes)}`).join(', ');
  return `${name}: ${kube.endpoint.server} ready in ${(kube.startMs / 1000).toFixed(1)} s, RSS ${mb(total)} (${each})`;
}
