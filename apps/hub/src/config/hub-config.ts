import { isAbsolute, resolve } from 'node:path';

/** Hub settings, parsed once at boot from the environment. */
export interface HubConfig {
  /** TCP port of the HTTP server (PORT, default 8080). */
  port: number;
  /** Address to bind (HOST, default 0.0.0.0; tests use 127.0.0.1). */
  host: string;
  /** Directory for the embedded database and key files (FLOTILLA_DATA_DIR, default ./.flotilla). */
  dataDir: string;
  /** postgres:// URL of a real PostgreSQL; unset means the embedded PGlite under dataDir/pgdata. */
  databaseUrl?: string;
  /** First admin token (FLOTILLA_ADMIN_TOKEN); unset means one is generated and printed at first start. */
  adminToken?: string;
  /** pino level (LOG_LEVEL, default info). */
  logLevel: LogLevel;
  /** Credential encryption keys `id:base64,…`, first current (FLOTILLA_ENCRYPTION_KEYS). */
  encryptionKeys?: string;
  /** File of such keys, one per line (FLOTILLA_ENCRYPTION_KEY_FILE); with neither, dataDir/encryption-keys is generated. */
  encryptionKeyFile?: string;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function defaultHubConfig(): HubConfig {
  return { port: 8080, host: '0.0.0.0', dataDir: resolve('.flotilla'), logLevel: 'info' };
}

/** Every bad environment variable, listed at once. */
export class HubConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid hub configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'HubConfigError';
  }
}

/** Reads the environment into a HubConfig; throws HubConfigError naming every bad variable. */
export function parseHubConfig(env: Record<string, string | undefined>, cwd = process.cwd()): HubConfig {
  const config = defaultHubConfig();
  const problems: string[] = [];
  const value = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };

  const port = value('PORT');
  if (port !== undefined) {
    const n = Number(port);
    if (!/^\d+$/.test(port) || n < 0 || n > 65535) {
      problems.push(`PORT=${JSON.stringify(port)}: expected an integer from 0 to 65535`);
    } else {
      config.port = n;
    }
  }

  const host = value('HOST');
  if (host !== undefined) config.host = host;

  const dataDir = value('FLOTILLA_DATA_DIR');
  config.dataDir = resolve(cwd, dataDir ?? '.flotilla');
  if (dataDir !== undefined && !isAbsolute(dataDir) && dataDir.startsWith('~')) {
    problems.push(`FLOTILLA_DATA_DIR=${JSON.stringify(dataDir)}: "~" is not expanded; give an absolute or relative path`);
  }

  const databaseUrl = value('DATABASE_URL');
  if (databaseUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(databaseUrl);
    } catch {
      problems.push('DATABASE_URL: not a valid URL (expected postgres://user:password@host:port/database)');
    }
    if (url && url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
      problems.push(`DATABASE_URL: scheme ${url.protocol} is not supported (expected postgres:// or postgresql://)`);
    } else if (url) {
      config.databaseUrl = databaseUrl;
    }
  }

  const adminToken = value('FLOTILLA_ADMIN_TOKEN');
  if (adminToken !== undefined) {
    if (adminToken.length < 16) problems.push('FLOTILLA_ADMIN_TOKEN: must be at least 16 characters');
    else config.adminToken = adminToken;
  }

  const encryptionKeys = value('FLOTILLA_ENCRYPTION_KEYS');
  const encryptionKeyFile = value('FLOTILLA_ENCRYPTION_KEY_FILE');
  if (encryptionKeys !== undefined && encryptionKeyFile !== undefined) {
    problems.push('FLOTILLA_ENCRYPTION_KEYS and FLOTILLA_ENCRYPTION_KEY_FILE: set only one');
  }
  if (encryptionKeys !== undefined) config.encryptionKeys = encryptionKeys;
  if (encryptionKeyFile !== undefined) config.encryptionKeyFile = resolve(cwd, encryptionKeyFile);

  const logLevel = value('LOG_LEVEL');
  if (logLevel !== undefined) {
    if ((LOG_LEVELS as readonly string[]).includes(logLevel)) config.logLevel = logLevel as LogLevel;
    else problems.push(`LOG_LEVEL=${JSON.stringify(logLevel)}: expected one of ${LOG_LEVELS.join(', ')}`);
  }

  if (problems.length > 0) throw new HubConfigError(problems);
  return config;
}
