import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** AES-256 keys by id; `current` seals new data, every key opens old data. */
export interface Keyring {
  current: string;
  keys: Map<string, Buffer>;
}

export class KeyringError extends Error {
  constructor(source: string, message: string, options?: { cause?: unknown }) {
    super(`encryption keys from ${source}: ${message}`, options);
    this.name = 'KeyringError';
  }
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Parses keys written one per line (or comma-separated) as `id:base64` or
 * `id base64`; the first key is the current one. Blank lines and `#` comments
 * are ignored. Each key must decode to 32 bytes.
 */
export function parseKeyring(text: string, source: string): Keyring {
  const keys = new Map<string, Buffer>();
  let current: string | undefined;
  const entries = text
    .split(/[\n,]/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  entries.forEach((entry, i) => {
    const m = /^([^:\s]+)[:\s]\s*(\S+)$/.exec(entry);
    if (!m) throw new KeyringError(source, `entry ${i + 1}: expected "id:base64key"`);
    const [, id, b64] = m;
    if (!KEY_ID.test(id)) throw new KeyringError(source, `entry ${i + 1}: key id "${id}" may only hold letters, digits, ".", "_" and "-"`);
    const key = Buffer.from(b64, 'base64');
    if (key.length !== 32) throw new KeyringError(source, `key "${id}": expected 32 bytes of base64, got ${key.length}`);
    if (keys.has(id)) throw new KeyringError(source, `key "${id}" appears twice`);
    keys.set(id, key);
    current ??= id;
  });
  if (!current) throw new KeyringError(source, 'no key given');
  return { current, keys };
}

/** Where keys come from, in order: the variable, the file, else a file generated under the data dir. */
export interface KeyringSource {
  keys?: string;
  keyFile?: string;
  generatedKeyFile: string;
}

export function loadKeyring(src: KeyringSource): Keyring {
  if (src.keys) return parseKeyring(src.keys, 'FLOTILLA_ENCRYPTION_KEYS');
  const file = src.keyFile ?? src.generatedKeyFile;
  if (!src.keyFile && !existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    const id = `k${new Date().toISOString().slice(0, 10).replace(/-/g, '')}`;
    writeFileSync(file, `# Flotilla credential encryption keys; first is current. Keep old keys to read old data.\n${id}:${randomBytes(32).toString('base64')}\n`, {
      mode: 0o600,
      flag: 'wx',
    });
    chmodSync(file, 0o600);
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new KeyringError(file, `cannot read: ${(err as Error).message}`, { cause: err });
  }
  return parseKeyring(text, file);
}
