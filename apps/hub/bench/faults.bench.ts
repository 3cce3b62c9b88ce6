// `npm run bench:faults`: what a misbehaving registry costs the rest of the
// hub. One hub on PostgreSQL with the real tag resolver (an in-process runner
// stands in for clusters): how long a healthy Project takes to become Ready
// alone and beside four Projects whose registry trickles one byte every 5 s,
// how long shutdown takes with those resolutions stuck, and the hub's RSS
// while a registry offers a 1 GiB manifest.
import { RegistryClient } from '@flotilla/oci';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetch as undiciFetch } from 'undici';
import { startHostileRegistry } from '../../../libs/oci/testdata/hostile-registry';
import { startPostgres } from '../../../test/harness/postgres';
import { startRegistry } from '../../../test/harness/registry';
import { defaultSchedulerConfig } from '../src/config/hub-config';
import { pushImage, RecordingRunner } from '../test/scheduler-fixtures';
import { startBenchHub } from './bench-hub';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const TICK_MS = Number(process.env.BENCH_TICK_MS ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (xs: number[]) => `median ${median(xs).toFixed(0)} ms, max ${Math.max(...xs).toFixed(0)} ms`;

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'faults-bench-'));
  const [pg, registry] = await Promise.all([startPostgres(work), startRegistry(work, 'registry')]);
  const trickle = await startHostileRegistry(() => ({ body: 'trickle', trickleMs: 5000 }));
  const flood = await startHostileRegistry(() => ({ body: 'flood', total: GiB }));
  const runner = new RecordingRunner('bench');
  runner.delayMs = 20;
  const { app, call: api } = await startBenchHub({ dataDir: work, databaseUrl: pg.endpoint.url, runner, scheduler: { tickMs: TICK_MS } });
  const call = (method: string, path: string, body?: unknown) => api<{ phase: string; conditions: Array<{ reason: string }> }>(method, path, body);
  const project = (name: string, repository: string) =>
    call('POST', '/api/v1/projects', { name, namespace: 'apps', source: { repository, tag: 'stable' }, targets: { names: ['c1'] } });
  const until = async (check: () => Promise<boolean>) => {
    for (;;) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const timeToReady = async (name: string, repo: string) => {
    // undici's own fetch: Node 20's and undici 7 disagree on blob PUTs in one process (see libs/engine's README)
    await pushImage(new RegistryClient({ fetch: undiciFetch as unknown as typeof fetch }), { registry: registry.endpoint.host, repository: repo }, 'stable', repo);
    const t0 = performance.now();
    await project(name, `oci://${registry.endpoint.host}/${repo}`);
    await until(async () => (await call('GET', `/api/v1/projects/${name}/targets/c1`)).phase === 'Ready');
    return performance.now() - t0;
  };

  try {
    await call('POST', '/api/v1/clusters', { name: 'c1', mode: 'push', endpoint: { server: 'https://127.0.0.1:1' }, credentials: { token: 't' } });
    const alone: number[] = [];
    for (let i = 0; i < ROUNDS; i++) alone.push(await timeToReady(`alone-${i}`, `healthy-alone-${i}`));

    for (let i = 0; i < 4; i++) await project(`trickle-${i}`, `oci://${trickle.host}/trickle-${i}`);
    await until(async () => new Set(trickle.requests).size >= 4);
    const beside: number[] = [];
    for (let i = 0; i < ROUNDS; i++) beside.push(await timeToReady(`beside-${i}`, `healthy-beside-${i}`));

    const rssBefore = process.memoryUsage.rss();
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
    await project('huge', `oci://${flood.host}/huge`);
    await until(async () => (await call('GET', '/api/v1/projects/huge/targets/c1')).conditions.some((c) => c.reason === 'SourceResolveFailed'));
    clearInterval(sampler);

    const stopping = performance.now();
    await app.close();
    const shutdown = performance.now() - stopping;

    console.log(`faults bench (tick ${TICK_MS} ms, 2 shared cores; the in-process runner stands in for clusters)`);
    console.log('| what | figure |');
    console.log('| --- | --- |');
    console.log(`| healthy Project, creation to Ready, alone (${ROUNDS} Projects) | ${ms(alone)} |`);
    console.log(`| the same beside 4 Projects whose registry trickles 1 byte / 5 s | ${ms(beside)} (median ${(median(beside) / median(alone)).toFixed(2)}×) |`);
    console.log(`| hub RSS while a registry offers a 1 GiB manifest | ${(rssBefore / MiB).toFixed(0)} → peak ${(peak / MiB).toFixed(0)} MiB (+${((peak - rssBefore) / MiB).toFixed(1)}) |`);
    console.log(`| shutdown with 4 tag resolutions stuck (grace ${defaultSchedulerConfig().shutdownGraceMs} ms) | ${shutdown.toFixed(0)} ms |`);
  } finally {
    await Promise.allSettled([trickle.close(), flood.close()]);
    await registry.stop();
    await pg.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
