// Debian's chromium driven by playwright-core: never a browser download.
// Each suite gets a fresh profile directory, removed when it closes.
import { execFileSync } from 'node:child_process';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureDebianPackage } from '../../harness/apt';

export const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
/** Where every browser test leaves its screenshot (gitignored). */
export const SCREENSHOT_DIR = resolve(__dirname, '../../../test-results/ui-screenshots');
export const VIEWPORT = { width: 1280, height: 800 };

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface Browser {
  context: BrowserContext;
  /** a new tab: its own sessionStorage, so its own sign-in */
  tab(): Promise<Page>;
  screenshot(page: Page, name: string): Promise<string>;
  close(): Promise<void>;
}

export interface BrowserOptions {
  /** PEM CA files the browser trusts for TLS (a test identity provider's), put into its own NSS database: no certificate check is switched off */
  trustCaFiles?: string[];
}

export async function launchBrowser(options: BrowserOptions = {}): Promise<Browser> {
  // .ci/run installs it; a machine without it gets it from apt as the harness does its other packages
  ensureDebianPackage('chromium', CHROMIUM);
  const profile = mkdtempSync(join(tmpdir(), 'flotilla-chromium-'));
  // chromium on Linux reads the user's trust store from $HOME/.pki/nssdb: a HOME of its own holds the test CAs
  const home = join(profile, 'home');
  const env: Record<string, string> = { ...(process.env as Record<string, string>), HOME: home };
  if (options.trustCaFiles?.length) {
    ensureDebianPackage('libnss3-tools', '/usr/bin/certutil');
    const db = join(home, '.pki', 'nssdb');
    mkdirSync(db, { recursive: true });
    execFileSync('certutil', ['-N', '-d', `sql:${db}`, '--empty-password']);
    options.trustCaFiles.forEach((file, i) => execFileSync('certutil', ['-A', '-d', `sql:${db}`, '-t', 'C,,', '-n', `flotilla-test-ca-${i}`, '-i', file]));
  }
  const context = await chromium.launchPersistentContext(join(profile, 'data'), { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: VIEWPORT, env });
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return {
    context,
    tab: () => context.newPage(),
    async screenshot(page, name) {
      const file = join(SCREENSHOT_DIR, `${name}.png`);
      await page.screenshot({ path: file });
      return file;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
