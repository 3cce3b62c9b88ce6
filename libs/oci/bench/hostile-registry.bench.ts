// Part of `npm run bench:oci`: the client against a misbehaving loopback
// registry. A 1 GiB manifest (generated as it is sent, announced or chunked)
// must be refused with little memory; a trickling registry must fail the call
// at its deadline however slowly bytes keep coming.
import { ContentTooLargeError, RegistryAbortedError, RegistryClient, RegistryTimeoutError } from '@flotilla/oci';
import { startHostileRegistry, type Misbehaviour } from '../testdata/hostile-registry';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const DEADLINE_MS = Number(process.env.BENCH_DEADLINE_MS ?? 2000);

/** Runs `fn` while sampling RSS; returns its outcome and the peak growth over the RSS before it. */
interface Measured {
  value: unknown;
  beforeMiB: number;
  growthMiB: number;
  ms: number;
}

async function peakRss(fn: () => Promise<unknown>): Promise<Measured> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 2);
  const start = process.hrtime.bigint();
  let value: unknown;
  try {
    value = await fn();
  } catch (err) {
    value = err;
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, process.memoryUsage.rss());
  return { value, beforeMiB: before / MiB, growthMiB: (peak - before) / MiB, ms: Number(process.hrtime.bigint() - start) / 1e6 };
}

async function against(how: Misbehaviour, fn: (host: string) => Promise<unknown>): Promise<Measured> {
  const server = await startHostileRegistry(() => how);
  try {
    return await peakRss(() => fn(server.host));
  } finally {
    await server.close();
  }
}

function outcome(value: unknown, expected: new (...args: never[]) => Error): string {
  if (value instanceof expected) return `${expected.name}: ${value.message}`;
  return `UNEXPECTED ${value instanceof Error ? `${value.name}: ${value.message}` : 'success'}`;
}

export async function hostileRegistryBench(): Promise<void> {
  const client = new RegistryClient({ responseTimeoutMs: DEADLINE_MS });
  const manifest = (host: string) => client.getManifest({ registry: host, repository: 'hostile/app', tag: 'v1' });
  console.log(`hostile registry (loopback), manifest limit ${client.options.maxManifestBytes / MiB} MiB, deadline ${DEADLINE_MS} ms`);

  // Warm up fetch and the server once, so the figures below are the requests' own.
  await against({ body: 'flood', total: 2, announce: true }, manifest);

  const announced = await against({ body: 'flood', total: GiB, announce: true }, manifest);
  console.log(`  1 GiB manifest, Content-Length   RSS ${announced.beforeMiB.toFixed(0)} MiB, peak +${announced.growthMiB.toFixed(1)} MiB, refused in ${announced.ms.toFixed(1)} ms`);
  console.log(`    ${outcome(announced.value, ContentTooLargeError)}`);

  const chunked = await against({ body: 'flood', total: GiB }, manifest);
  console.log(`  1 GiB manifest, chunked          RSS ${chunked.beforeMiB.toFixed(0)} MiB, peak +${chunked.growthMiB.toFixed(1)} MiB, refused in ${chunked.ms.toFixed(1)} ms`);
  console.log(`    ${outcome(chunked.value, ContentTooLargeError)}`);

  const trickle = await against({ body: 'trickle', trickleMs: 500 }, manifest);
  console.log(`  manifest trickling 1 B / 500 ms  failed after ${trickle.ms.toFixed(0)} ms (deadline ${DEADLINE_MS} ms)`);
  console.log(`    ${outcome(trickle.value, RegistryTimeoutError)}`);

  const silent = await against({ body: 'never' }, manifest);
  console.log(`  headers never sent               failed after ${silent.ms.toFixed(0)} ms (deadline ${DEADLINE_MS} ms)`);
  console.log(`    ${outcome(silent.value, RegistryTimeoutError)}`);

  // A shutdown aborting a stuck call: how long until the caller is free.
  const stuck = await startHostileRegistry(() => ({ body: 'trickle', trickleMs: 5000 }));
  try {
    const controller = new AbortController();
    const seen = stuck.nextRequest();
    const pending = new RegistryClient({ responseTimeoutMs: 600_000 }).getManifest({ registry: stuck.host, repository: 'hostile/app', tag: 'v1' }, { signal: controller.signal });
    await seen;
    const start = process.hrtime.bigint();
    controller.abort(new Error('SIGTERM'));
    const err = await pending.catch((e: unknown) => e);
    console.log(`  abort of a stuck call            caller free after ${(Number(process.hrtime.bigint() - start) / 1e6).toFixed(2)} ms`);
    console.log(`    ${outcome(err, RegistryAbortedError)}`);
  } finally {
    await stuck.close();
  }
}
