import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { harnessEnv } from '../../../test/harness/env';

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
