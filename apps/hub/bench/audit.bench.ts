// `npm run bench:audit`: what the audit log costs a request. An in-process
// hub on a fresh harness PostgreSQL, logging at info to a discarding stream
// (the audit line is written, as in production). Drives BENCH_REQUESTS
// (default 2000) refused writes (a viewer's POST: 403, no database work, so
// recording is as large a share of the request as it gets) over
// BENCH_CONNECTIONS (default 8) at a time, in alternating rounds with
// recording on and with AuditRecorder.record replaced by a no-op; then times
// the queued batch INSERT per entry, and the synchronous part (entry + log
// line + queue push) alone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createHubApp, listeningUrl } from '../src/app';
import { auditEntryOf } from '../src/audit/audit-entry';
import { AuditRecorder, auditLogFields } from '../src/audit/audit-recorder';
import { defaultAgentServerConfig, defaultHubConfig, defaultSchedulerConfig } from '../src/config/hub-config';
import { AuditRepository } from '../src/repositories/audit.repository';
import { startPostgres } from '../../../test/harness/postgres';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const ADMIN = 'bench-admin-token-0123456789abcdef';

async function drive(url: string, token: string): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next++ < REQUESTS) {
        const res = await fetch(`${url}/api/v1/projects/none/suspend`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        if (res.status !== 403) throw new Error(`expected 403, got ${res.status}`);
      }
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e3 / REQUESTS;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'flotilla-audit-bench-'));
  const pg = await startPostgres(work);
  let logBytes = 0;
  const sink = new Writable({ write: (chunk: Buffer, _e, cb) => ((logBytes += chunk.length), cb()) });
  const app = await createHubApp(
    {
      ...defaultHubConfig(),
      host: '127.0.0.1',
      port: 0,
      dataDir: work,
      databaseUrl: pg.endpoint.url,
      logLevel: 'info',
      adminToken: ADMIN,
      scheduler: { ...defaultSchedulerConfig(), enabled: false },
      agents: { ...defaultAgentServerConfig('127.0.0.1'), port: 0 },
      auth: { failureLimit: 0, failureWindowMs: 60_000 },
    },
    { logDestination: sink as never, announce: () => undefined, interactive: false },
  );
  try {
    await app.listen(0, '127.0.0.1');
    const url = listeningUrl(app);
    const res = await fetch(`${url}/api/v1/tokens`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench', role: 'viewer' }) });
    const viewer = ((await res.json()) as { token: string }).token;
    const recorder = app.get(AuditRecorder);
    const record = recorder.record.bind(recorder);
    await drive(url, viewer); // warm up
    const on: number[] = [];
    const off: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      recorder.record = record;
      on.push(await drive(url, viewer));
      await recorder.flush();
      recorder.record = () => undefined;
      off.push(await drive(url, viewer));
    }
    recorder.record = record;
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    console.log(`refused write (403), ${CONNECTIONS} connections, ${REQUESTS} requests x ${ROUNDS} rounds: ${median(on).toFixed(1)} µs/request audited, ${median(off).toFixed(1)} µs/request not; difference ${(median(on) - median(off)).toFixed(1)} µs`);

    // the synchronous part on the request path: build the entry, write the log line, queue it
    const sample = { at: new Date(), method: 'POST', path: '/api/v1/projects/web/suspend', route: { pattern: '/api/v1/projects/:name/suspend', params: { name: 'web' } }, status: 403, actor: { tokenId: '00000000-0000-4000-8000-000000000000', name: 'bench' }, requestId: 'bench', sourceAddress: '127.0.0.1' };
    const n = 5000;
    let t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) recorder.record(auditEntryOf(sample));
    const syncUs = Number(process.hrtime.bigint() - t) / 1e3 / n;
    // the same without the queue: the entry and its log line alone
    const logger = (recorder as unknown as { logger: { info(o: object, m: string): void } }).logger;
    t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) logger.info(auditLogFields(auditEntryOf(sample)), 'audit');
    const lineUs = Number(process.hrtime.bigint() - t) / 1e3 / n;
    await recorder.flush();
    console.log(`synchronous part (entry, log line, queue push): ${syncUs.toFixed(2)} µs/entry`);
    console.log(`of which the entry and its log line: ${lineUs.toFixed(2)} µs/entry`);

    // the batch INSERT the queue makes, per entry
    const repo = app.get(AuditRepository);
    const batch = Array.from({ length: 200 }, () => auditEntryOf(sample));
    t = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    for (let i = 0; i < 25; i++) await repo.append(batch);
    const used = process.cpuUsage(cpu);
    const insertMs = Number(process.hrtime.bigint() - t) / 1e6 / 25;
    const hubCpuUs = (used.user + used.system) / 25 / 200;
    console.log(`batch INSERT of 200 entries: ${insertMs.toFixed(1)} ms (${((insertMs * 1000) / 200).toFixed(1)} µs/entry, off the request path), of which the hub's own CPU ${hubCpuUs.toFixed(1)} µs/entry`);
    console.log(`log written: ${(logBytes / 1048576).toFixed(1)} MiB`);
  } finally {
    await app.close();
    await pg.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
