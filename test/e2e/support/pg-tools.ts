import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';

// The standard PostgreSQL client tools, as docs/operations.md tells an
// operator to run them: pg_dump in the custom format, pg_restore into an
// empty database. Debian installs them with the server the harness runs.

const run = promisify(execFile);

/** A PostgreSQL tool that did not finish well: names the tool and keeps its output. */
export class PgToolError extends Error {
  constructor(tool: string, cause: unknown) {
    const e = cause as { stderr?: string; message?: string };
    super(`${tool} failed: ${(e.stderr || e.message || String(cause)).trim()}`, { cause });
    this.name = 'PgToolError';
  }
}

/** The newest /usr/lib/postgresql/<major>/bin: pg_dump must be at least as new as the server it dumps. */
export function pgBinDir(): string {
  const base = '/usr/lib/postgresql';
  const majors = existsSync(base) ? readdirSync(base).filter((v) => /^\d+$/.test(v)) : [];
  const newest = majors.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error(`no PostgreSQL client tools under ${base}: apt-get install postgresql-client`);
  return join(base, newest, 'bin');
}

// a dump or restore of a test database takes about a second; this bounds a hung tool
const TOOL_TIMEOUT_MS = 120_000;

async function tool(name: string, args: string[]): Promise<void> {
  try {
    await run(join(pgBinDir(), name), args, { timeout: TOOL_TIMEOUT_MS, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    throw new PgToolError(name, err);
  }
}

/** `pg_dump --format=custom`: one consistent snapshot, taken while the hub runs. */
export function pgDump(databaseUrl: string, file: string): Promise<void> {
  return tool('pg_dump', ['--format=custom', `--file=${file}`, `--dbname=${databaseUrl}`]);
}

/** `pg_restore` into an empty database, in one transaction, stopping at the first error. */
export function pgRestore(databaseUrl: string, file: string): Promise<void> {
  return tool('pg_restore', ['--exit-on-error', '--single-transaction', '--no-owner', `--dbname=${databaseUrl}`, file]);
}

/** `url` with its database replaced by `name`. */
export function databaseUrl(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Runs one statement on the server's `postgres` database (CREATE/DROP DATABASE cannot run in the one they name). */
export async function adminStatement(serverUrl: string, sql: string): Promise<void> {
  const c = new Client({ connectionString: databaseUrl(serverUrl, 'postgres'), connectionTimeoutMillis: 10_000 });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** `createdb`: an empty database `name` on the server of `serverUrl`. */
export function createDatabase(serverUrl: string, name: string): Promise<void> {
  return tool('createdb', [`--maintenance-db=${databaseUrl(serverUrl, 'postgres')}`, name]);
}

/** `psql --command`: one statement, stopping on its error. */
export function psql(databaseUrl: string, sql: string): Promise<void> {
  return tool('psql', ['--no-psqlrc', '--set=ON_ERROR_STOP=1', `--dbname=${databaseUrl}`, `--command=${sql}`]);
}
