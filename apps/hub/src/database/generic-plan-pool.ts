// A second, small pool of PostgreSQL sessions for the API's list reads whose
// best plan does not depend on their parameters' values. On the main pool,
// PostgreSQL plans a named statement again for each run's values while it
// guesses that a generic plan would cost more, and with LIMIT and OFFSET as
// parameters it always guesses so: the lists' statements were planned on
// every request, which cost about as much as running them. On these sessions
// plan_cache_mode is force_generic_plan, so each statement is planned once
// per session. A pool of its own, because the setting applies to every
// statement of a session, the ORM's unnamed ones too.
import { Pool, type PoolConfig } from 'pg';
import type { DataSource } from 'typeorm';

/** Sessions of the pool: list reads take a few milliseconds each; PostgreSQL runs few of them at once anyway. */
export const GENERIC_PLAN_POOL_SIZE = 5;

const pools = new WeakMap<DataSource, Pool>();

/** The pg pool TypeORM keeps for `ds`; the embedded database's driver has none. */
export function mainPool(ds: DataSource): Pool | undefined {
  const master = (ds.driver as { master?: unknown }).master;
  return master instanceof Pool ? master : undefined;
}

/**
 * Opens the pool beside `ds`'s own (PostgreSQL only: the embedded database
 * has no pool), with the same connection settings, and checks that its
 * sessions got the setting. A connection pooler between the hub and
 * PostgreSQL may refuse the startup option or drop it: then there is no
 * such pool, `unavailable` is told why, and every read runs on the main pool.
 */
export async function openGenericPlanPool(ds: DataSource, unavailable: (reason: string) => void = () => undefined): Promise<Pool | undefined> {
  const main = mainPool(ds);
  if (!main) return undefined;
  const settings = (main as unknown as { options: PoolConfig }).options;
  const options = [settings.options, '-c plan_cache_mode=force_generic_plan'].filter(Boolean).join(' ');
  const pool = new Pool({ ...settings, max: GENERIC_PLAN_POOL_SIZE, options });
  // an idle session lost (a database restart) leaves the pool; the next read opens another, and its failure reaches the caller
  pool.on('error', () => undefined);
  try {
    const { rows } = await pool.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode');
    if (rows[0]?.plan_cache_mode !== 'force_generic_plan') throw new Error(`its sessions have plan_cache_mode ${rows[0]?.plan_cache_mode ?? 'unknown'}`);
  } catch (err) {
    await pool.end().catch(() => undefined);
    unavailable(err instanceof Error ? err.message : String(err));
    return undefined;
  }
  pools.set(ds, pool);
  return pool;
}

/** The pool opened for `ds`, if any. */
export function genericPlanPool(ds: DataSource): Pool | undefined {
  return pools.get(ds);
}

export async function closeGenericPlanPool(ds: DataSource): Promise<void> {
  const pool = pools.get(ds);
  pools.delete(ds);
  await pool?.end();
}
