import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { ensureDebianPackage } from './apt';
import { freePort } from './ports';
import { spawnLogged, stopProcess, waitUntil } from './process';
import type { PostgresEndpoint, RunningService } from './types';

const USER = 'flotilla';
const PASSWORD = 'flotilla-test';
const DATABASE = 'flotilla';

function postgresBinDir(): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).filter((v) => /^\d+$/.test(v)) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error(`no PostgreSQL server under ${base}`);
  return join(base, newest, 'bin');
}

/** initdb refuses to run as root, so as root the cluster belongs to the `postgres` user. */
function serviceUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

/** Starts a fresh PostgreSQL cluster in workDir on a free loopback port. */
export async function startPostgres(workDir: string): Promise<RunningService<PostgresEndpoint>> {
  ensureDebianPackage('postgresql', '/usr/lib/postgresql');
  const bin = postgresBinDir();
  const owner = serviceUser();
  const dir = join(workDir, 'postgres');
  const dataDir = join(dir, 'data');
  const logFile = join(workDir, 'postgres.log');
  mkdirSync(dir, { recursive: true });
  const pwFile = join(dir, 'pwfile');
  writeFileSync(pwFile, `${PASSWORD}\n`);
  if (owner) {
    chownSync(workDir, owner.uid, owner.gid);
    chownSync(dir, owner.uid, owner.gid);
    chownSync(pwFile, owner.uid, owner.gid);
  }

  execFileSync(
    join(bin, 'initdb'),
    ['-D', dataDir, '-U', USER, '--auth=scram-sha-256', `--pwfile=${pwFile}`, '-E', 'UTF8', '--no-sync'],
    { stdio: 'pipe', ...owner },
  );

  const port = await freePort();
  // Durability is pointless for a throwaway test cluster; speed is not.
  const child = spawnLogged(
    join(bin, 'postgres'),
    ['-D', dataDir, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1',
      '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200'],
    logFile,
    { ...owner },
  );

  const endpoint: PostgresEndpoint = {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`,
    host: '127.0.0.1',
    port,
    user: USER,
    password: PASSWORD,
    database: DATABASE,
  };
  await waitUntil('postgres', child, logFile, async () => {
    const client = new Client({ ...endpoint, database: 'postgres' });
    try {
      await client.connect();
      return true;
    } finally {
      await client.end().catch(() => undefined);
    }
  });
  const admin = new Client({ ...endpoint, database: 'postgres' });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  await admin.end();

  return { endpoint, logFile, stop: () => stopProcess(child) };
}
