// `npm run bench:kube`: staged apply, no-op re-apply, wait and prune of N ConfigMaps against
// the harness API server (started here). Prints wall times and API request counts.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

const dist = resolve(import.meta.dirname, '../../../dist');
const require = createRequire(join(dist, 'node_modules/x.js'));
const kube = require('@flotilla/kube');
const { startKube } = require(join(dist, 'test/harness/kube.js'));

const N = Number(process.env.BENCH_OBJECTS ?? 200);
console.log(`${N} ConfigMaps + 1 Namespace, QPS ${process.env.BENCH_QPS ?? '100 (burst 300)'}`);
const work = mkdtempSync(join(tmpdir(), 'kube-bench-'));
const service = await startKube(work).catch((err) => {
  rmSync(work, { recursive: true, force: true });
  throw err;
});
let requests = 0;
const conn = kube.ClusterConnection.create(
  { server: service.endpoint.server, caData: service.endpoint.caData, token: service.endpoint.admin.token },
  {
    onRequest: () => requests++,
    // BENCH_QPS=10000 shows the engine without Timoni's client limits (QPS 100, burst 300)
    ...(process.env.BENCH_QPS ? { qps: Number(process.env.BENCH_QPS), burst: Number(process.env.BENCH_QPS) } : {}),
  },
);
try {
  const rm = new kube.ResourceManager(conn);
  const ns = 'bench';
  const instance = { name: 'bench', namespace: ns };
  const objects = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    ...Array.from({ length: N }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: ns }, data: { i: String(i) } })),
  ];
  const step = async (label, fn) => {
    const before = requests;
    const t = performance.now();
    const out = await fn();
    console.log(`${label.padEnd(34)} ${(performance.now() - t).toFixed(0).padStart(6)} ms  ${String(requests - before).padStart(5)} requests`);
    return out;
  };
  const prepared = await step(`prepare ${N + 1} objects`, () => rm.prepare(objects, instance));
  const created = await step('apply (all created)', () => rm.applyAllStaged(prepared));
  const again = await step('re-apply (all unchanged)', () => rm.applyAllStaged(prepared));
  const changed = prepared.map((o, i) => (i === 1 ? { ...o, data: { i: 'changed' } } : o));
  const one = await step('re-apply (one configured)', () => rm.applyAllStaged(changed));
  await step('wait (all Current)', () => rm.wait(prepared));
  const pruned = await step(`prune ${N} ConfigMaps`, () => rm.prune(prepared.slice(1).map(kube.objectRef), instance));
  const count = (cs, action) => cs.entries.filter((e) => e.action === action).length;
  console.log(`created ${count(created, 'created')}, unchanged ${count(again, 'unchanged')}, configured ${count(one, 'configured')}, deleted ${count(pruned, 'deleted')}`);
} finally {
  await conn.close();
  await service.stop();
  rmSync(work, { recursive: true, force: true });
}
