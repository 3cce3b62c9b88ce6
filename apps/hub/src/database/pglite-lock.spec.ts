import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirInUseError, lockDataDir } from './pglite-lock';

describe('lockDataDir', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pglite-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('claims a free data dir and releases it', () => {
    const file = join(dir, 'pgdata.lock');
    const release = lockDataDir(file);
    expect(readFileSync(file, 'utf8').trim()).toBe(String(process.pid));
    release();
    expect(existsSync(file)).toBe(false);
  });

  it('refuses a data dir held by a live process', () => {
    const file = join(dir, 'pgdata.lock');
    writeFileSync(file, `${process.ppid}\n`);
    expect(() => lockDataDir(file)).toThrow(DataDirInUseError);
    expect(() => lockDataDir(file)).toThrow(`in use by process ${process.ppid}`);
  });

  it('takes over a lock whose process is gone, or that is garbage', () => {
    const file = join(dir, 'pgdata.lock');
    writeFileSync(file, '2147483646\n');
    lockDataDir(file)();
    writeFileSync(file, 'not a pid');
    lockDataDir(file)();
    expect(existsSync(file)).toBe(false);
  });
});
