// `npm run bench:rollout`: how fast rollout waves open. One hub in process
// on a real PostgreSQL and registry, with the production scheduler tick
// (2 s) and a source poll of 1 s; an in-process runner stands in for 1,000
// push clusters (BENCH_TARGETS) in 5 cluster groups, one wave each, no soak.
// Per revision (BENCH_ROUNDS, default 3): the tag moves, the source poll
// finds it, and every cluster takes it wave by wave. Prints, per wave after
// the first, the time from the last cluster of the wave before being done
// (its run ended Ready and Healthy) to the first run of the wave starting
// (p50, p99, max; goal under 1 s), and the hub's CPU per Target (the
// process's user + system time over the round, the in-process runner's small
// share included).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetch as undiciFetch } from 'undici';
import { RegistryClient } from '@flotilla/oci';
import { startPostgres } from '../../../test/harness/postgres';
import { startRegistry } from '../../../test/harness/registry';
import { SchedulerService } from '../src/scheduler/scheduler.service';
import { pushImage, RecordingRunner } from '../test/scheduler-fixtures';
import { startBenchHub } from './bench-hub';

const TARGETS = Number(process.env.BENCH_TARGETS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WAVES = 5;
const GOAL_MS = 1000;
const DEADLINE_MS = 15 * 60_000;

const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
};

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'rollout-bench-'));
  const [pg, registry] = await Promise.all([startPostgres(work), startRegistry(work, 'registry')]);
  const runner = new RecordingRunner('bench');
  runner.delayMs = 0;
  const reg = new RegistryClient({ fetch: undiciFetch as unknown as typeof fetch });
  const image = { registry: registry.endpoint.host, repository: 'bench/rollout' };
  const { app, call } = await startBenchHub({ dataDir: work, databaseUrl: pg.endpoint.url, runner, scheduler: { tickMs: 2000, sourcePollMs: 1000 } });
  const scheduler = app.get(SchedulerService);
  const waveOf = (cluster: string) => Number(cluster.split('-')[0].slice(1));
  const gaps: number[] = [];
  const cpuPerTarget: number[] = [];
  try {
    for (let i = 0; i < TARGETS; i++) {
      await call('POST', '/api/v1/clusters', { name: `g${i % WAVES}-c${i}`, group: `g${i % WAVES}`, mode: 'push', endpoint: { server: 'https://127.0.0.1:1' }, credentials: { token: 't' } });
    }
    const groups = Array.from({ length: WAVES }, (_, w) => `g${w}`);
    let digest = await pushImage(reg, image, 'stable', 'round 0');
    await call('POST', '/api/v1/projects', { name: 'fleet', namespace: 'apps', source: { repository: `oci://${image.registry}/${image.repository}`, tag: 'stable' }, targets: { groups }, rollout: { waves: groups.map((group) => ({ group })) } });
    const everywhere = async (d: string, since: number) => {
      const deadline = Date.now() + DEADLINE_MS;
      for (;;) {
        const done = new Set(runner.runs.filter((r) => r.digest === d && r.ok && r.end >= since).map((r) => r.target));
        if (done.size >= TARGETS) return;
        if (Date.now() > deadline) throw new Error(`only ${done.size} of ${TARGETS} Targets took ${d} in ${DEADLINE_MS / 60_000} min`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await everywhere(digest, 0);
    await scheduler.drain();

    for (let round = 1; round <= ROUNDS; round++) {
      const cpu0 = process.cpuUsage();
      const t0 = Date.now();
      // the source poll (every second here) finds the tag moved and opens the first wave
      digest = await pushImage(reg, image, 'stable', `round ${round}`);
      await everywhere(digest, t0);
      await scheduler.drain();
      const used = process.cpuUsage(cpu0);
      cpuPerTarget.push((used.user + used.system) / 1000 / TARGETS);
      const runs = runner.runs.filter((r) => r.digest === digest && r.start >= t0);
      for (let w = 1; w < WAVES; w++) {
        const before = runs.filter((r) => waveOf(r.target.split('/')[1]) === w - 1 && r.ok);
        const next = runs.filter((r) => waveOf(r.target.split('/')[1]) === w);
        gaps.push(Math.min(...next.map((r) => r.start)) - Math.max(...before.map((r) => r.end)));
      }
      process.stderr.write(`round ${round}: ${runs.length} runs in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
    }
    const ms = (x: number) => x.toFixed(0);
    process.stdout.write(
      [
        `bench:rollout — ${TARGETS} push Targets in ${WAVES} waves, no soak, ${ROUNDS} revision(s); scheduler tick 2 s`,
        '| measure | n | p50 | p99 | max | goal |',
        '| --- | --- | --- | --- | --- | --- |',
        `| wave done → next wave's first run starts (ms) | ${gaps.length} | ${ms(quantile(gaps, 0.5))} | ${ms(quantile(gaps, 0.99))} | ${ms(Math.max(...gaps))} | < ${GOAL_MS} |`,
        `| hub CPU per Target per revision (ms) | ${cpuPerTarget.length} | ${quantile(cpuPerTarget, 0.5).toFixed(2)} | ${quantile(cpuPerTarget, 0.99).toFixed(2)} | ${Math.max(...cpuPerTarget).toFixed(2)} | |`,
        '',
      ].join('\n'),
    );
  } finally {
    await app.close();
    await registry.stop();
    await pg.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
