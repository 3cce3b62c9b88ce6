import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Makes sure a Debian package is installed, installing it with apt when we
 * run as root. Anything else gets an error that says what to install.
 */
export function ensureDebianPackage(pkg: string, probePath: string): void {
  if (existsSync(probePath)) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`${probePath} is missing: install the Debian package '${pkg}' (apt-get install -y ${pkg})`);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    execFileSync('apt-get', ['install', '-y', '-qq', pkg], { stdio: 'pipe', env });
  } catch {
    // A fresh machine may have no package lists yet.
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'pipe', env });
    execFileSync('apt-get', ['install', '-y', '-qq', pkg], { stdio: 'pipe', env });
  }
  if (!existsSync(probePath)) throw new Error(`installed '${pkg}' but ${probePath} is still missing`);
}
