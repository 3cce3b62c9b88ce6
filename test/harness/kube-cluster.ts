import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defaultKubeOptions, describeKube, startKube, type KubeOptions, type RunningKube } from './kube';
import { writeKubeconfig } from './kubeconfig';
import type { KubeEndpoint } from './types';

/** One extra harness cluster: API server, controllers and kwok nodes. */
export interface KubeCluster {
  name: string;
  endpoint: KubeEndpoint;
  /** kubeconfig of the admin (system:masters, bearer token) */
  kubeconfig: string;
  /** state, certificates and logs */
  workDir: string;
  /** every process of the cluster, by name */
  pids: Record<string, number>;
  startMs: number;
  /** resident memory of each process now, in bytes */
  rss(): Record<string, number>;
  /** `name: server ready in … s, RSS … MB (…)` */
  describe(): string;
  stop(): Promise<void>;
}

/** What `clusters.json` in a cluster directory records, so another process can use or stop the clusters. */
export interface ClusterRecord {
  name: string;
  server: string;
  kubeconfig: string;
  workDir: string;
  pids: Record<string, number>;
  startMs: number;
}

export interface KubeClusterOptions extends KubeOptions {
  /** where the cluster keeps state and logs; made when missing */
  workDir: string;
}

/**
 * Starts one cluster in `workDir` and writes `workDir/kubeconfig` for its
 * admin. Used for fleets of clusters in tests and the demo; the harness's
 * own cluster (harnessEnv().kube) is started the same way.
 */
export async function startKubeCluster(name: string, options: Partial<KubeClusterOptions> & { workDir: string }): Promise<KubeCluster> {
  const workDir = resolve(options.workDir);
  mkdirSync(workDir, { recursive: true });
  const kube: RunningKube = await startKube(workDir, { ...defaultKubeOptions(), ...options });
  const kubeconfig = join(workDir, 'kubeconfig');
  writeKubeconfig(kubeconfig, name, kube.endpoint.server, kube.endpoint.caData, { token: kube.endpoint.admin.token });
  return {
    name,
    endpoint: kube.endpoint,
    kubeconfig,
    workDir,
    pids: kube.pids,
    startMs: kube.startMs,
    rss: kube.rss,
    describe: () => describeKube(name, kube),
    stop: kube.stop,
  };
}

/** Clusters this process started and keeps, by directory: stopped through their own stop(), which also ends their kwok watchdog and knows a restarted kwok's pid. */
const startedHere = new Map<string, KubeCluster[]>();

/**
 * Starts one cluster per name side by side under `dir` (`dir/<name>/`), and
 * records them in `dir/clusters.json`. With `detached: true` they outlive the
 * calling process; `stopKubeClusters(dir)` stops them from any process.
 */
export async function startKubeClusters(dir: string, names: string[], options: Partial<KubeOptions> = {}): Promise<KubeCluster[]> {
  const results = await Promise.allSettled(names.map((name) => startKubeCluster(name, { ...options, workDir: join(dir, name) })));
  const clusters = results.filter((r) => r.status === 'fulfilled').map((r) => r.value);
  const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed.length) {
    await Promise.allSettled(clusters.map((c) => c.stop()));
    throw new Error(`${failed.length} of ${names.length} clusters did not start (logs in ${dir}/<name>/)`, { cause: failed[0].reason });
  }
  const records: ClusterRecord[] = clusters.map((c) => ({
    name: c.name,
    server: c.endpoint.server,
    kubeconfig: c.kubeconfig,
    workDir: c.workDir,
    pids: c.pids,
    startMs: c.startMs,
  }));
  writeFileSync(join(dir, 'clusters.json'), `${JSON.stringify(records, null, 2)}\n`);
  if (!options.detached) startedHere.set(resolve(dir), clusters);
  return clusters;
}

/** The clusters `startKubeClusters` recorded in `dir`, or none. */
export function readKubeClusters(dir: string): ClusterRecord[] {
  const file = join(dir, 'clusters.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ClusterRecord[]) : [];
}

/** True when `pid` runs and its command line names `workDir`: a recycled pid is never signalled. */
function ours(pid: number, workDir: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(workDir);
  } catch {
    return false;
  }
}

/**
 * Stops the clusters recorded in `dir` from any process: SIGTERM, then
 * SIGKILL for what is still running after `graceMs`; removes `dir` afterwards
 * unless `keepDir`.
 */
export async function stopKubeClusters(dir: string, options: { graceMs?: number; keepDir?: boolean } = {}): Promise<void> {
  const graceMs = options.graceMs ?? 5_000;
  const own = startedHere.get(resolve(dir));
  startedHere.delete(resolve(dir));
  if (own) await Promise.allSettled(own.map((c) => c.stop()));
  // what another process started (or what its own stop left): by the recorded pids
  const pids = readKubeClusters(dir).flatMap((c) => Object.values(c.pids).filter((pid) => ours(pid, c.workDir)).map((pid) => ({ pid, dir: c.workDir })));
  const signal = (sig: NodeJS.Signals) => {
    for (const p of pids) if (ours(p.pid, p.dir)) process.kill(p.pid, sig);
  };
  signal('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (pids.some((p) => ours(p.pid, p.dir)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  signal('SIGKILL');
  const killDeadline = Date.now() + 10_000;
  while (pids.some((p) => ours(p.pid, p.dir))) {
    if (Date.now() > killDeadline) throw new Error(`clusters in ${dir} still run 10 s after SIGKILL: ${pids.map((p) => p.pid).join(' ')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  if (!options.keepDir) rmSync(dir, { recursive: true, force: true });
}
