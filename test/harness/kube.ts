import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { kubeRequest } from './kube-http';
import { writeKubePki } from './kube-pki';
import { freePort } from './ports';
import { logTail, startProcess, type ServiceProcess } from './process';
import type { KubeEndpoint, KubeIdentity, RunningService } from './types';

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

const binariesFile = resolve(__dirname, '../kube-apiserver/.binaries.json');

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
        `${name} binary not found (${path ?? `no ${binariesFile}`}): run \`npm run build\` ` +
          '(or node test/kube-apiserver/build.mjs), or set KUBE_APISERVER_BIN and ETCD_BIN',
      );
    }
  }
  return found as KubeBinaries;
}

/** Thrown when etcd or kube-apiserver does not come up; the message carries the log tail. */
export class KubeStartError extends Error {
  constructor(
    readonly binary: string,
    readonly logFile: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${binary} failed to start: ${reason}\n--- last lines of ${logFile} ---\n${logTail(logFile)}`, options);
    this.name = 'KubeStartError';
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it returns true; fails early when `proc` exits. */
async function waitFor(proc: ServiceProcess, what: string, deadline: number, check: () => Promise<boolean>): Promise<void> {
  let last: unknown;
  while (Date.now() < deadline) {
    if (!proc.running()) throw new KubeStartError(proc.name, proc.logFile, `exited (${await proc.exited}) before ${what}`);
    try {
      if (await check()) return;
    } catch (err) {
      last = err;
    }
    await sleep(100);
  }
  const detail = last instanceof Error ? ` (last error: ${last.message})` : '';
  throw new KubeStartError(proc.name, proc.logFile, `timed out waiting for ${what}${detail}`, { cause: last });
}

function identity(user: string, groups: string[]): KubeIdentity {
  return { user, groups, token: randomBytes(24).toString('hex') };
}

async function startEtcd(bin: string, dir: string, deadline: number): Promise<{ proc: ServiceProcess; url: string }> {
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const proc = startProcess('etcd', bin, [
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
  ], join(dir, 'etcd.log'));
  await waitFor(proc, `${url}/health`, deadline, async () => {
    const res = await fetch(`${url}/health`);
    return res.ok && ((await res.json()) as { health?: string }).health === 'true';
  });
  return { proc, url };
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
 * `workDir`. There is no controller manager: namespaces are not finalized on
 * delete, no garbage collection, no `default` ServiceAccount in new namespaces.
 */
export async function startKube(workDir: string, options: KubeOptions = defaultKubeOptions()): Promise<RunningService<KubeEndpoint>> {
  const bins = options.binaries ?? kubeBinaries();
  const dir = resolve(workDir);
  mkdirSync(dir, { recursive: true });
  const deadline = Date.now() + options.startTimeoutMs;
  const admin = identity('flotilla-admin', ['system:masters']);
  const unprivileged = identity('flotilla-nobody', []);
  // token,user,uid[,"group1,group2"]; an empty group column would name a group ""
  const line = (i: KubeIdentity) => [i.token, i.user, i.user, ...(i.groups.length ? [`"${i.groups.join(',')}"`] : [])].join(',');
  writeFileSync(join(dir, 'tokens.csv'), `${line(admin)}\n${line(unprivileged)}\n`, { mode: 0o600 });
  const pki = await writeKubePki(dir);

  const procs: ServiceProcess[] = [];
  const stop = async () => {
    // API server first, so it does not log etcd errors while shutting down
    for (const p of [...procs].reverse()) await p.stop(options.stopGraceMs);
  };
  try {
    const etcd = await startEtcd(bins.etcd, dir, deadline);
    procs.push(etcd.proc);
    const port = await freePort();
    const apiserver = startProcess('kube-apiserver', bins.kubeApiserver, apiserverArgs(dir, port, etcd.url, pki), join(dir, 'kube-apiserver.log'));
    procs.push(apiserver);

    const endpoint: KubeEndpoint = { server: `https://127.0.0.1:${port}`, caData: pki.caData, version: '', admin, unprivileged };
    const get = (path: string) => kubeRequest(endpoint, path, { token: admin.token, timeoutMs: 5_000 });
    const ok = (path: string) => async () => (await get(path)).status === 200;
    await waitFor(apiserver, '/readyz', deadline, async () => (await get('/readyz')).text === 'ok');
    await waitFor(apiserver, 'the default namespace', deadline, ok('/api/v1/namespaces/default'));
    await waitFor(apiserver, 'the RBAC bootstrap roles', deadline, ok('/apis/rbac.authorization.k8s.io/v1/clusterroles/admin'));
    const version = await get('/version');
    endpoint.version = (version.json as { gitVersion: string }).gitVersion;
    return { endpoint, logFile: apiserver.logFile, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
