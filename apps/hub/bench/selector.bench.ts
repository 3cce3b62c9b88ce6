// `npm run bench:selector`: what the worst `labelSelector` costs now. The
// parser alone on 4096-character selectors of the shapes that cost most (the
// shape that froze the hub, a list of 2,000 values, 1,000 requirements), then
// BENCH_ROUNDS (default 1000) GET /api/v1/clusters with the worst of them
// (refused, 400) against a hub in process on a real PostgreSQL, one at a time.
import { performance } from 'node:perf_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres } from '../../../test/harness/postgres';
import { labelSelectorProblem } from '../src/targeting/label-selector-parser';
import { startBenchHub } from './bench-hub';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1000);
const MAX = 4096;

const fill = (head: string, unit: string, tail: string) => head + unit.repeat(Math.floor((MAX - head.length - tail.length) / unit.length)) + tail;
const SHAPES: [string, string][] = [
  ['k in (a + "  ," × n + tab ) (refused at the end)', fill('k in (a', '  ,', '\t)')],
  ['k in (a + "  ," × n + " )" (read whole)', fill('k in (a', '  ,', ' )')],
  ['k0,k1,… (1,000 requirements)', Array.from({ length: 1000 }, (_, i) => `k${i}`).join(',').slice(0, MAX).replace(/,$/, '')],
];

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)];
const fmt = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`);

async function main(): Promise<void> {
  console.log(`parser, ${ROUNDS} parses each, length ${MAX} at most:`);
  for (const [name, text] of SHAPES) {
    const times: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const t = performance.now();
      labelSelectorProblem(text);
      times.push(performance.now() - t);
    }
    console.log(`  ${name} (${text.length} chars): p50 ${fmt(quantile(times, 0.5))}, p99 ${fmt(quantile(times, 0.99))}, max ${fmt(Math.max(...times))}`);
  }

  const work = mkdtempSync(join(tmpdir(), 'flotilla-bench-selector-'));
  const pg = await startPostgres(work);
  const { app, url } = await startBenchHub({ dataDir: work, databaseUrl: pg.endpoint.url, scheduler: { enabled: false } });
  try {
    const path = `${url}/api/v1/clusters?labelSelector=${encodeURIComponent(SHAPES[0][1])}`;
    const headers = { authorization: 'Bearer bench-admin-token-0123456789' };
    const times: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const t = performance.now();
      const res = await fetch(path, { headers });
      await res.text();
      if (res.status !== 400) throw new Error(`expected 400, got ${res.status}`);
      times.push(performance.now() - t);
    }
    console.log(`HTTP, ${ROUNDS} × GET /api/v1/clusters with the first shape (400): p50 ${fmt(quantile(times, 0.5))}, p99 ${fmt(quantile(times, 0.99))}, max ${fmt(Math.max(...times))}`);
  } finally {
    await app.close();
    await pg.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
