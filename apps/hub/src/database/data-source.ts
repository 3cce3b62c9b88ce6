import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Client } from 'pg';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { hubEntities } from './entities';
import { hubMigrations } from './migrations';
import { pgliteDriver } from './pglite-driver';
import { lockDataDir } from './pglite-lock';

/** Where the hub keeps its state: a real PostgreSQL, or PGlite files under a directory. */
export type DatabaseTarget = { kind: 'postgres'; url: string } | { kind: 'pglite'; dataDir: string };

export function databaseTarget(config: { databaseUrl?: string; dataDir: string }): DatabaseTarget {
  return config.databaseUrl
    ? { kind: 'postgres', url: config.databaseUrl }
    : { kind: 'pglite', dataDir: join(config.dataDir, 'pgdata') };
}

/** Thrown when the database cannot be opened or migrated; names which one (never the password). */
export class DatabaseOpenError extends Error {
  constructor(target: DatabaseTarget, cause: unknown) {
    const where = target.kind === 'pglite' ? `embedded PostgreSQL at ${target.dataDir}` : `PostgreSQL at ${redactUrl(target.url)}`;
    super(`cannot open ${where}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'DatabaseOpenError';
  }
}

export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

/** Same entities and migrations for both kinds; the schema only changes through migrations. */
export async function dataSourceOptions(target: DatabaseTarget): Promise<DataSourceOptions> {
  const common = {
    type: 'postgres' as const,
    entities: hubEntities,
    migrations: hubMigrations,
    migrationsTableName: 'migrations',
    synchronize: false,
    migrationsRun: false,
    uuidExtension: 'pgcrypto' as const,
    installExtensions: false,
    logging: false,
  };
  if (target.kind === 'postgres') {
    return { ...common, url: target.url, poolSize: 10 };
  }
  mkdirSync(target.dataDir, { recursive: true });
  const release = lockDataDir(`${target.dataDir}.lock`);
  try {
    const db = await PGlite.create(target.dataDir);
    return { ...common, driver: pgliteDriver(db, release) };
  } catch (err) {
    release();
    throw err;
  }
}

// Any fixed 64-bit number names the lock; this one spells "flotilla" in ASCII.
const MIGRATION_LOCK = '7380676954236969313';

/**
 * Opens the database and applies pending migrations. On PostgreSQL, replicas
 * starting together take turns through an advisory lock (held by a separate
 * session, so it spans TypeORM's pool); the later ones find nothing to do.
 */
export async function openDatabase(target: DatabaseTarget): Promise<DataSource> {
  let ds: DataSource | undefined;
  let lock: Client | undefined;
  try {
    ds = new DataSource(await dataSourceOptions(target));
    await ds.initialize();
    if (target.kind === 'postgres') {
      lock = new Client({ connectionString: target.url });
      await lock.connect();
      await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    }
    await ds.runMigrations({ transaction: 'each' });
    return ds;
  } catch (err) {
    if (ds?.isInitialized) await ds.destroy().catch(() => undefined);
    throw new DatabaseOpenError(target, err);
  } finally {
    // ending the session releases the lock
    await lock?.end().catch(() => undefined);
  }
}
