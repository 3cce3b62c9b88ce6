// Debian's chromium driven by playwright-core: never a browser download.
// Each suite gets a fresh profile directory, removed when it closes.
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

export async function launchBrowser(): Promise<Browser> {
  // .ci/run installs it; a machine without it gets it from apt as the harness does its other packages
  ensureDebianPackage('chromium', CHROMIUM);
  const profile = mkdtempSync(join(tmpdir(), 'flotilla-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: VIEWPORT });
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
