import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { harnessEnv } from '../../../../test/harness/env';
import { createTempDataDir, createTestDatabase } from '../../test/databases';
import { queryPrepared } from '../repositories/sql';
import { openDatabase } from './data-source';
import { closeGenericPlanPool, genericPlanPool, openGenericPlanPool } from './generic-plan-pool';

const PAGE = { text: 'SELECT name FROM clusters WHERE name > $1 ORDER BY name LIMIT $2 OFFSET $3', values: ['a', 50, 0] };

/** The plan mode of the session a read ran on (force_generic_plan: PostgreSQL plans each statement once per session). */
async function sessionOf(ds: DataSource, planOnce: boolean): Promise<string> {
  const rows = await queryPrepared<{ plan_cache_mode: string }>(ds.manager, { text: 'SHOW plan_cache_mode', values: [] }, { prepare: true, planOnce });
  return rows[0].plan_cache_mode;
}

describe('the generic-plan pool', () => {
  it('on PostgreSQL: planOnce reads run on sessions that plan once, all others on the main pool', async () => {
    const db = await createTestDatabase();
    const ds = await openDatabase({ kind: 'postgres', url: db.url });
    try {
      const pool = await openGenericPlanPool(ds);
      expect(pool).toBeDefined();
      expect(genericPlanPool(ds)).toBe(pool);
      expect(await sessionOf(ds, true)).toBe('force_generic_plan');
      expect(await sessionOf(ds, false)).toBe('auto');
      // the statement runs there as it does on the main pool
      expect(await queryPrepared(ds.manager, PAGE, { prepare: true, planOnce: true })).toEqual([]);
      // within a transaction a read stays on the transaction's session
      const inTx = await ds.transaction((m) => queryPrepared<{ plan_cache_mode: string }>(m, { text: 'SHOW plan_cache_mode', values: [] }, { prepare: true, planOnce: true }));
      expect(inTx[0].plan_cache_mode).toBe('auto');
      await closeGenericPlanPool(ds);
      expect(genericPlanPool(ds)).toBeUndefined();
      // without it, planOnce reads fall back to the main pool
      expect(await sessionOf(ds, true)).toBe('auto');
    } finally {
      await closeGenericPlanPool(ds);
      await ds.destroy();
      await db.drop();
    }
  });

  it('on PostgreSQL that refuses the sessions: says why, and every read runs on the main pool', async () => {
    const db = await createTestDatabase();
    const ds = await openDatabase({ kind: 'postgres', url: db.url });
    const admin = new Client({ connectionString: harnessEnv().postgres.url });
    await admin.connect();
    try {
      // no new session, as a pooler refusing the startup option would answer; the main pool keeps the ones it has
      await admin.query(`ALTER DATABASE "${db.name}" ALLOW_CONNECTIONS false`);
      const reasons: string[] = [];
      expect(await openGenericPlanPool(ds, (r) => reasons.push(r))).toBeUndefined();
      expect(reasons).toEqual([expect.stringMatching(/not currently accepting connections/)]);
      expect(genericPlanPool(ds)).toBeUndefined();
      expect(await sessionOf(ds, true)).toBe('auto');
    } finally {
      await admin.query(`ALTER DATABASE "${db.name}" ALLOW_CONNECTIONS true`);
      await admin.end();
      await ds.destroy();
      await db.drop();
    }
  });

  it('on embedded PGlite: there is no pool, and planOnce reads run as any other', async () => {
    const tmp = createTempDataDir();
    const ds = await openDatabase({ kind: 'pglite', dataDir: tmp.dir });
    try {
      expect(await openGenericPlanPool(ds)).toBeUndefined();
      const rows = await queryPrepared<{ name: string }>(ds.manager, PAGE, { prepare: true, planOnce: true });
      expect(rows).toEqual([]);
    } finally {
      await ds.destroy();
      tmp.cleanup();
    }
  });
});
