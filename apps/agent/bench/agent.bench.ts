// `npm run bench:agent`: the compiled agent as a process against a real API
// server and registry, installed with its own manifests and token.
// Prints: time from Project creation to Ready, from a new digest to applied
// (median of BENCH_REPEAT runs), idle RSS, and peak RSS while it reconciles
// BENCH_PROJECTS Projects at once, beside a bare Node process's RSS as the
// reference measured in the same run, and idle RSS again once its CUE
// engine has started; then the time a standby replica takes
// to lead after the leader is killed.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startKube } from '../../../test/harness/kube';
import { startRegistry } from '../../../test/harness/registry';
import { adminManager, createTenant } from '../../../libs/engine/testdata/harness';
import { kubeconfigFile, startAgentProcess } from '../test/agent-process';
import { agentKubeconfig, installAgent } from '../test/install';
import { applyObject, condition, getProject, projectObject, projectRepository, pushGreeterModule, pushSingle } from '../test/project-fixtures';

const repeat = Number(process.env.BENCH_REPEAT ?? 5);
const projects = Number(process.env.BENCH_PROJECTS ?? 50);
const pollMs = 1000;

function ownRssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0; // gone meanwhile
  }
}

function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((t) => readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

/** RSS of the process and all its descendants (the CUE helpers run as child processes). */
function rssMiB(pid: number): number {
  return ownRssMiB(pid) + childrenOf(pid).reduce((sum, c) => sum + rssMiB(c), 0);
}

/** CUE runtime of the agent under test: FLOTILLA_CUE_RUNTIME passed on (native, wasm) for before/after. */
const agentEnv: Record<string, string> = process.env.FLOTILLA_CUE_RUNTIME ? { FLOTILLA_CUE_RUNTIME: process.env.FLOTILLA_CUE_RUNTIME } : {};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(check: () => Promise<T | undefined | false>, timeoutMs = 300_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('bench: timed out');
    await sleep(25);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function bareNodeRss(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await sleep(1500);
  const rss = rssMiB(child.pid!);
  child.kill();
  return rss;
}

const progress = (what: string) => process.stderr.write(`bench: ${what}\n`);

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'flotilla-bench-agent-'));
  const registry = await startRegistry(work, 'registry');
  const kube = await startKube(work);
  process.env.FLOTILLA_HARNESS = JSON.stringify({ registry: registry.endpoint, kube: kube.endpoint });
  const { manager } = adminManager();
  const client = manager.client;
  const agentCache = mkdtempSync(join(tmpdir(), 'flotilla-bench-agent-cache-'));
  let agent: ReturnType<typeof startAgentProcess> | undefined;
  try {
    progress('services up; installing the agent');
    await installAgent(client);
    const kubeconfig = kubeconfigFile(await agentKubeconfig(client));
    const [moduleUrl, ns] = await Promise.all([pushGreeterModule(), createTenant(client, 'bench-agent')]);
    const bare = await bareNodeRss();
    progress('starting the agent');

    agent = startAgentProcess([`--kubeconfig=${kubeconfig}`, '--http-address=127.0.0.1:0', `--poll-interval=${pollMs}ms`, `--cache-dir=${agentCache}`, `--namespace=${ns}`, '--log-level=warn'], agentEnv);
    const url = await agent.url;
    await until(async () => (await fetch(`${url}/readyz`)).status === 200, 60_000).catch((err: Error) => {
      throw new Error(`${err.message}: the agent never got ready; its output:\n${agent!.output()}`);
    });
    await sleep(2000);
    const idle = rssMiB(agent.child.pid!);

    progress(`idle RSS ${idle.toFixed(1)} MiB; ${repeat} Projects one by one`);
    const toReady: number[] = [];
    const toApplied: number[] = [];
    for (let i = 0; i < repeat; i++) {
      const repo = projectRepository();
      const first = await pushSingle(repo, moduleUrl, ns, `solo-${i}`);
      const t0 = performance.now();
      await applyObject(client, projectObject(`solo-${i}`, ns, repo));
      await until(async () => {
        const p = await getProject(client, ns, `solo-${i}`);
        return condition(p, 'Ready')?.status === 'True' && p?.status?.lastAppliedRevision === `latest@${first}`;
      });
      toReady.push(performance.now() - t0);
      // a second revision: another greeting under the same tag
      const next = await pushSingle(repo, moduleUrl, ns, `solo-${i}`, 'latest', 'hello again');
      const t1 = performance.now();
      await until(async () => (await getProject(client, ns, `solo-${i}`))?.status?.lastAppliedRevision === `latest@${next}`);
      toApplied.push(performance.now() - t1);
    }

    progress(`${projects} Projects at once`);
    let peak = rssMiB(agent.child.pid!);
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(agent!.child.pid!))), 100);
    const repos = await Promise.all(Array.from({ length: projects }, async (_, i) => {
      const repo = projectRepository();
      await pushSingle(repo, moduleUrl, ns, `many-${i}`);
      return repo;
    }));
    const t2 = performance.now();
    await Promise.all(repos.map((repo, i) => applyObject(client, projectObject(`many-${i}`, ns, repo))));
    await until(async () => {
      const list = await client.list('projects.timoni.sh/v1alpha1', 'Project', { namespace: ns });
      return list.filter((p) => p.metadata.name.startsWith('many-') && condition(p as never, 'Ready')?.status === 'True').length === projects;
    }, 900_000);
    const allReady = performance.now() - t2;
    clearInterval(sampler);
    // Idle again, now with its CUE engine started (it starts on the first build).
    await sleep(3000);
    const idleAfter = rssMiB(agent.child.pid!);

    await agent.stop();
    agent = undefined;

    // failover: two replicas on one Lease; the leader is killed without releasing it
    progress('failover');
    const leaseMs = 4000;
    const replicas = ['a', 'b'].map((id) =>
      startAgentProcess([`--kubeconfig=${kubeconfig}`, '--http-address=127.0.0.1:0', '--leader-elect', '--leader-election-namespace=flotilla-system', `--lease-duration=${leaseMs}ms`, '--renew-deadline=3s', '--retry-period=500ms', `--poll-interval=${pollMs}ms`, `--cache-dir=${agentCache}`, `--namespace=${ns}`, `--identity=replica-${id}`, '--log-level=warn']),
    );
    const holder = async () => ((await client.getOptional({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'flotilla-system', name: 'flotilla-agent' }))?.spec as { holderIdentity?: string } | undefined)?.holderIdentity;
    const leader = await until(holder);
    const standby = leader === 'replica-a' ? 'replica-b' : 'replica-a';
    const t3 = performance.now();
    await replicas[leader === 'replica-a' ? 0 : 1].kill();
    await until(async () => (await holder()) === standby);
    const takeover = performance.now() - t3;
    const repo = projectRepository();
    const digest = await pushSingle(repo, moduleUrl, ns, 'after-failover');
    await applyObject(client, projectObject('after-failover', ns, repo));
    await until(async () => (await getProject(client, ns, 'after-failover'))?.status?.lastAppliedRevision === `latest@${digest}`);
    const firstReady = performance.now() - t3;
    await Promise.all(replicas.map((r) => r.stop()));

    const f = (n: number) => n.toFixed(0);
    console.log(`agent bench (poll interval ${pollMs} ms, ${repeat} runs each, medians)`);
    console.log(`  creation → Ready:          ${f(median(toReady))} ms  (min ${f(Math.min(...toReady))}, max ${f(Math.max(...toReady))})`);
    console.log(`  new digest → applied:      ${f(median(toApplied))} ms  (min ${f(Math.min(...toApplied))}, max ${f(Math.max(...toApplied))})`);
    console.log(`  RSS bare Node (reference): ${bare.toFixed(1)} MiB`);
    console.log(`  CUE runtime:               ${process.env.FLOTILLA_CUE_RUNTIME ?? 'default'}; RSS counts the agent and its CUE helper processes`);
    console.log(`  RSS idle agent:            ${idle.toFixed(1)} MiB  (${(idle / bare).toFixed(1)}× bare Node), before its first build`);
    console.log(`  RSS idle agent after work: ${idleAfter.toFixed(1)} MiB  (${(idleAfter / bare).toFixed(1)}× bare Node; goal < 150 MiB)`);
    console.log(`  RSS peak, ${projects} Projects:     ${peak.toFixed(1)} MiB  (${(peak / bare).toFixed(1)}× bare Node); all Ready in ${f(allReady)} ms`);
    console.log(`  leader killed → standby holds the Lease: ${f(takeover)} ms (lease duration ${leaseMs} ms); → a new Project Ready: ${f(firstReady)} ms`);
  } finally {
    await agent?.stop();
    await client.connection.close();
    await kube.stop();
    await registry.stop();
    rmSync(work, { recursive: true, force: true });
    rmSync(agentCache, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
