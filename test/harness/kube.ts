import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { kubeRequest } from './kube-http';
import { writeClientCertificate, writeKubePki } from './kube-pki';
import { freePort } from './ports';
import { ServiceStartError, spawnLogged, stopProcess, waitUntil } from './process';
import type { KubeCertIdentity, KubeEndpoint, KubeIdentity, RunningService } from './types';

/** How startKube starts and stops the API server. */
export interface KubeOptions {
  /** how long etcd plus kube-apiserver may take to become ready */
  startTimeoutMs: number;
  /** how long stop() waits after SIGTERM before SIGKILL, per process */
  stopGraceMs: number;
  /** binaries to run; kubeBinaries() when absent */
  binaries?: KubeBinaries;
}

export function defaultKubeOptions(): KubeOptions {
  return { startTimeoutMs: 90_000, stopGraceMs: 5_000 };
}

export interface KubeBinaries {
  kubeApiserver: string;
  etcd: string;
}

// test/harness in the sources, dist/test/harness once compiled
const binariesFile =
  [resolve(__dirname, '../..'), resolve(__dirname, '../../..')]
    .map((root) => join(root, 'test/kube-apiserver/.binaries.json'))
    .find((file) => existsSync(file)) ?? resolve(__dirname, '../kube-apiserver/.binaries.json');

/** KUBE_APISERVER_BIN / ETCD_BIN, else what test/kube-apiserver/build.mjs recorded. */
export function kubeBinaries(): KubeBinaries {
  const recorded: Partial<KubeBinaries> = existsSync(binariesFile) ? JSON.parse(readFileSync(binariesFile, 'utf8')) : {};
  const found = {
    kubeApiserver: process.env.KUBE_APISERVER_BIN || recorded.kubeApiserver,
    etcd: process.env.ETCD_BIN || recorded.etcd,
  };
  for (const [name, path] of Object.entries(found)) {
    if (!path || !existsSync(path)) {
      throw new Error(
        `${name} binary not found (${path ?? `no ${binariesFile}`}): run \`npm run build:test\` ` +
          '(or node test/kube-apiserver/build.mjs), or set KUBE_APISERVER_BIN and ETCD_BIN',
      );
    }
  }
  return found as KubeBinaries;
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

interface Started {
  child: ChildProcess;
  logFile: string;
}

/** Starts etcd and adds it to `procs` at once, so a failed start can still stop it. */
async function startEtcd(bin: string, workDir: string, dir: string, deadline: number, procs: Started[]): Promise<string> {
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
  ], logFile);
  procs.push({ child, logFile });
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
    // No kubelets, no controller manager, one client: skip the machinery for them.
    '--enable-priority-and-fairness=false',
    '--endpoint-reconciler-type=none',
    '--profiling=false',
    '--shutdown-delay-duration=0s',
  ];
}

/**
 * Starts etcd and a real kube-apiserver on free loopback ports, with state in
 * `workDir/kube` and logs in `workDir/{etcd,kube-apiserver}.log`.
 * There is no controller manager: deleted namespaces stay Terminating, nothing
 * is garbage collected, new namespaces get no `default` ServiceAccount.
 * Upstream sleeps 2 s in the first create of a custom resource within 2 s of
 * its CRD becoming Established (for HA servers): create CRDs early, once.
 */
export async function startKube(workDir: string, options: KubeOptions = defaultKubeOptions()): Promise<RunningService<KubeEndpoint>> {
  const bins = options.binaries ?? kubeBinaries();
  // state in workDir/kube, logs beside the other services' in workDir
  const dir = join(resolve(workDir), 'kube');
  mkdirSync(dir, { recursive: true });
  const deadline = Date.now() + options.startTimeoutMs;
  const admin = identity('flotilla-admin', ['system:masters']);
  const unprivileged = identity('flotilla-nobody', []);
  // token,user,uid[,"group1,group2"]; an empty group column would name a group ""
  const line = (i: KubeIdentity) => [i.token, i.user, i.user, ...(i.groups.length ? [`"${i.groups.join(',')}"`] : [])].join(',');
  writeFileSync(join(dir, 'tokens.csv'), `${line(admin)}\n${line(unprivileged)}\n`, { mode: 0o600 });
  const procs: Started[] = [];
  const stop = async () => {
    // API server first, so it does not log etcd errors while shutting down
    for (const p of [...procs].reverse()) await stopProcess(p.child, options.stopGraceMs);
  };
  try {
    // openssl and etcd's start each take a few hundred ms: overlap them
    const [etcdStart, pkiStart] = await Promise.allSettled([startEtcd(bins.etcd, workDir, dir, deadline, procs), writeKubePki(dir)]);
    if (etcdStart.status === 'rejected') throw etcdStart.reason;
    if (pkiStart.status === 'rejected') throw pkiStart.reason;
    const [etcdUrl, pki] = [etcdStart.value, pkiStart.value];
    const certAdmin = await certIdentity(dir, 'flotilla-cert-admin', ['system:masters']);
    const port = await freePort();
    const logFile = join(workDir, 'kube-apiserver.log');
    const child = spawnLogged(bins.kubeApiserver, apiserverArgs(dir, port, etcdUrl, pki), logFile);
    procs.push({ child, logFile });

    const endpoint: KubeEndpoint = { server: `https://127.0.0.1:${port}`, caData: pki.caData, version: '', admin, unprivileged, certAdmin };
    const get = (path: string) => kubeRequest(endpoint, path, { token: admin.token, timeoutMs: 5_000 });
    const ok = (path: string) => async () => (await get(path)).status === 200;
    const wait = (ready: () => Promise<boolean>) => waitFor('kube-apiserver', child, logFile, deadline, ready);
    // The priority class hook polls once a second and matters only to Pods,
    // which nothing here runs; the classes appear about a second later.
    await wait(async () => (await get('/readyz?exclude=poststarthook/scheduling/bootstrap-system-priority-classes')).text === 'ok');
    await wait(ok('/api/v1/namespaces/default')); // made by a controller shortly after ready
    await wait(ok('/apis/rbac.authorization.k8s.io/v1/clusterroles/admin')); // RBAC bootstrap roles
    const version = await get('/version');
    if (version.status !== 200) throw new ServiceStartError('kube-apiserver', `/version answered ${version.status}`, logFile);
    endpoint.version = (version.json as { gitVersion: string }).gitVersion;
    return { endpoint, logFile, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
