// `npm run bench:oci`: build, push, resolve and pull a generated module against
// a real registry started for the run; prints wall times (median of runs).
// Then the client against a misbehaving registry (memory and deadlines).
// BENCH_ONLY=hostile runs only the latter.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobCache, RegistryClient, buildModuleImage, defaultPushModuleOptions, parseReference, pullModule, pushModule } from '@flotilla/oci';
import { startHarness } from '../../../test/harness/harness';
import { hostileRegistryBench } from './hostile-registry.bench';

const FILES = Number(process.env.BENCH_FILES ?? 400);
const FILE_BYTES = Number(process.env.BENCH_FILE_BYTES ?? 4096);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

async function time<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const start = process.hrtime.bigint();
  const value = await fn();
  return [Number(process.hrtime.bigint() - start) / 1e6, value];
}

async function median(fn: (run: number) => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push((await time(() => fn(i)))[0]);
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

async function makeModule(dir: string): Promise<void> {
  await mkdir(join(dir, 'cue.mod', 'pkg'), { recursive: true });
  await writeFile(join(dir, 'cue.mod', 'module.cue'), 'module: "bench.test/m"\n');
  await mkdir(join(dir, 'templates'), { recursive: true });
  for (let i = 0; i < FILES; i++) {
    // Half compressible text, half random: closer to real modules than either alone.
    const body = `package templates\n// ${'x'.repeat(FILE_BYTES / 2)}\n// ${randomBytes(FILE_BYTES / 4).toString('hex')}\n`;
    await writeFile(join(dir, i % 10 === 0 ? join('cue.mod', 'pkg', `gen${i}.cue`) : join('templates', `t${i}.cue`)), body);
  }
  await writeFile(join(dir, 'timoni.cue'), 'package main\n');
  await writeFile(join(dir, 'values.cue'), 'package main\nvalues: {}\n');
}

async function main(): Promise<void> {
  const harness = await startHarness(['registry']);
  const work = await mkdtemp(join(tmpdir(), 'flotilla-oci-bench-'));
  try {
    const registry = harness.env.registry!.host;
    const moduleDir = join(work, 'module');
    await makeModule(moduleDir);
    const client = new RegistryClient();
    const url = `oci://${registry}/bench/module`;

    const build = await median(() => buildModuleImage(moduleDir, { version: '1.0.0', annotations: {} }));
    const image = await buildModuleImage(moduleDir, { version: '1.0.0', annotations: {} });
    const pushCold = await median((i) => pushModule(client, `${url}${i}`, moduleDir, defaultPushModuleOptions('1.0.0')));
    const pushWarm = await median(() => pushModule(client, `${url}0`, moduleDir, defaultPushModuleOptions('1.0.0')));
    const ref = parseReference(`${url}0:1.0.0`);
    const resolve = await median(() => client.resolve(ref));
    const pullCold = await median((i) => pullModule(client, ref, join(work, `cold${i}`)));
    const cache = new BlobCache({ dir: join(work, 'cache'), maxBytes: 1 << 30 });
    await pullModule(client, ref, join(work, 'prime'), { cache, extract: { maxBytes: 100 << 20, maxFiles: 10_000 } });
    const pullCached = await median((i) => pullModule(client, ref, join(work, `warm${i}`), { cache, extract: { maxBytes: 100 << 20, maxFiles: 10_000 } }));

    const layerBytes = image.layers.reduce((n, l) => n + l.data.length, 0);
    console.log(`oci bench: ${FILES} files x ${FILE_BYTES} B, layers ${(layerBytes / 1024).toFixed(0)} KiB gzip, median of ${RUNS} runs`);
    console.log(`  build module image      ${build.toFixed(1)} ms`);
    console.log(`  build+push, new repo    ${pushCold.toFixed(1)} ms`);
    console.log(`  build+push, blobs there ${pushWarm.toFixed(1)} ms`);
    console.log(`  resolve tag (HEAD)      ${resolve.toFixed(2)} ms`);
    console.log(`  pull, no cache          ${pullCold.toFixed(1)} ms`);
    console.log(`  pull, cache warm        ${pullCached.toFixed(1)} ms`);
  } finally {
    await rm(work, { recursive: true, force: true });
    await harness.stop();
  }
}

async function all(): Promise<void> {
  if (process.env.BENCH_ONLY !== 'hostile') await main();
  await hostileRegistryBench();
}

all().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
