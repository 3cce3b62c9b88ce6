// The generated first admin token goes to a file only the hub's user can
// read, never to the log: logs are shipped and kept where anyone may read them.
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const ADMIN_TOKEN_FILE = 'admin-token';

/** Writes `token` to `dataDir/admin-token` with mode 0600 and returns the path. */
export function writeAdminTokenFile(dataDir: string, token: string): string {
  const file = join(dataDir, ADMIN_TOKEN_FILE);
  mkdirSync(dataDir, { recursive: true });
  // a stale file (another database's token, other permissions) is replaced, not reused
  rmSync(file, { force: true });
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  // the mode given at creation is narrowed by the umask only; make it exact
  chmodSync(file, 0o600);
  return file;
}
