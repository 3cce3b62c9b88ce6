import { createHash, randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { harnessEnv } from '../../../test/harness/env';
import { openDatabase } from '../src/database/data-source';
import { hubMigrations } from '../src/database/migrations';

/** A database of its own on the harness PostgreSQL, so tests never share state. */
export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const pg = harnessEnv().postgres;
  const name = `hub_test_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: pg.url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(pg.url);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const c = new Client({ connectionString: pg.url });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** A fresh directory for an embedded database, removed by cleanup(). */
export function createTempDataDir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'flotilla-hub-test-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Fills `dataDir` with an embedded database that already ran every migration:
 * a copy of a template made once per PGlite version and migration list. A fresh
 * initdb costs seconds per hub; tests of first start (main, app, drift) still
 * start from nothing.
 */
export async function seedPgliteDataDir(dataDir: string): Promise<void> {
  const pkg = readFileSync(join(__dirname, '../../../node_modules/@electric-sql/pglite/package.json'), 'utf8');
  const version = (JSON.parse(pkg) as { version: string }).version;
  const key = createHash('sha256')
    .update(version)
    .update(hubMigrations.map((m) => m.name).join(','))
    // a migration changed before it ever shipped keeps its name: its text is in the key too
    .update(hubMigrations.map((m) => m.prototype.up.toString()).join('\n'))
    .digest('hex')
    .slice(0, 12);
  const template = join(tmpdir(), `flotilla-hub-pglite-template-${key}`);
  if (!existsSync(template)) {
    const building = `${template}.tmp-${randomBytes(4).toString('hex')}`;
    const ds = await openDatabase({ kind: 'pglite', dataDir: building });
    await ds.destroy();
    try {
      renameSync(building, template);
    } catch {
      rmSync(building, { recursive: true, force: true }); // another test file made it first
    }
  }
  cpSync(template, join(dataDir, 'pgdata'), { recursive: true });
}
