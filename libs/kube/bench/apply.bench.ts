// `npm run bench:kube`: staged apply, no-op re-apply, wait and prune of N ConfigMaps against a
// real API server started for the run. Prints wall times and API request counts.
// BENCH_OBJECTS=n (default 200); BENCH_QPS=10000 lifts Timoni's client limits (QPS 100, burst 300).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ClusterConnection, ResourceManager, objectRef, type ChangeSet, type KubeObject } from '@flotilla/kube';
import { startKube } from '../../../test/harness/kube';

async function main(): Promise<void> {
  const n = Number(process.env.BENCH_OBJECTS ?? 200);
  const qps = process.env.BENCH_QPS ? Number(process.env.BENCH_QPS) : undefined;
  console.log(`${n} ConfigMaps + 1 Namespace, QPS ${qps ?? '100 (burst 300)'}`);
  const work = mkdtempSync(join(tmpdir(), 'kube-bench-'));
  const service = await startKube(work).catch((err: unknown) => {
    rmSync(work, { recursive: true, force: true });
    throw err;
  });
  let requests = 0;
  const { server, caData, admin } = service.endpoint;
  const conn = ClusterConnection.create({ server, caData, token: admin.token }, { onRequest: () => requests++, ...(qps ? { qps, burst: qps } : {}) });
  try {
    const rm = new ResourceManager(conn);
    const ns = 'bench';
    const instance = { name: 'bench', namespace: ns };
    const objects: KubeObject[] = [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
      ...Array.from({ length: n }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: ns }, data: { i: String(i) } })),
    ];
    const step = async <T>(label: string, fn: () => Promise<T>): Promise<T> => {
      const before = requests;
      const t = performance.now();
      const out = await fn();
      console.log(`${label.padEnd(34)} ${(performance.now() - t).toFixed(0).padStart(6)} ms  ${String(requests - before).padStart(5)} requests`);
      return out;
    };
    const count = (cs: ChangeSet, action: string) => cs.entries.filter((e) => e.action === action).length;
    const prepared = await step(`prepare ${n + 1} objects`, () => rm.prepare(objects, instance));
    const created = await step('apply (all created)', () => rm.applyAllStaged(prepared));
    const again = await step('re-apply (all unchanged)', () => rm.applyAllStaged(prepared));
    const changed = prepared.map((o, i) => (i === 1 ? { ...o, data: { i: 'changed' } } : o));
    const one = await step('re-apply (one configured)', () => rm.applyAllStaged(changed));
    await step('wait (all Current)', () => rm.wait(prepared));
    const pruned = await step(`prune ${n} ConfigMaps`, () => rm.prune(prepared.slice(1).map(objectRef), instance));
    console.log(`created ${count(created, 'created')}, unchanged ${count(again, 'unchanged')}, configured ${count(one, 'configured')}, deleted ${count(pruned, 'deleted')}`);
  } finally {
    await conn.close();
    await service.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
