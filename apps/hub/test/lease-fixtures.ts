// What the lease specs share: a database of their own on the harness
// PostgreSQL, and the engine's report of a run of their `shop` Project.
import { buildRunReport, UnexpectedRunError, type RunReport, type RunResult } from '@flotilla/engine';
import type { DataSource } from 'typeorm';
import { openDatabase } from '../src/database/data-source';
import { createTestDatabase, type TestDatabase } from './databases';

/** A fresh database for the suite, emptied of Projects and clusters (and so Targets and runs) before each test. */
export function useLeaseDatabase(): { readonly ds: DataSource } {
  let db: TestDatabase | undefined;
  let ds: DataSource | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
    ds = await openDatabase({ kind: 'postgres', url: db.url });
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });
  beforeEach(async () => {
    await ds!.query(`DELETE FROM projects`);
    await ds!.query(`DELETE FROM clusters`);
  });
  return {
    get ds() {
      return ds!;
    },
  };
}

/** The engine's report of a run of `shop` on `revision` (`tag@digest`), after `attempt` failed ones. */
export function shopRunReport(revision: string, ok: boolean, options: { attempt?: number; namespaces?: string[] } = {}): RunReport {
  const at = new Date();
  const result: RunResult = {
    project: { name: 'shop', namespace: 'shop' },
    cluster: { name: 'c', group: 'default' },
    source: 'oci://127.0.0.1:1/shop',
    tag: 'stable',
    digest: revision.split('@')[1],
    revision,
    ok,
    startedAt: at,
    finishedAt: at,
    durationMs: 1,
    timings: { resolveMs: 0, fetchMs: 0, loadMs: 0, componentsMs: 0, pruneMs: 0 },
    components: [],
    pruned: [],
    namespaces: options.namespaces ?? ['shop'],
    warnings: [],
    ...(ok ? {} : { error: new UnexpectedRunError('the cluster went away') }),
  };
  return buildRunReport(result, { attempt: options.attempt ?? 0, intervalMs: 600_000, backoff: { initialMs: 1000, factor: 2, maxMs: 60_000, jitter: 0 } });
}
