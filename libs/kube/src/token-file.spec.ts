import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConnectionConfigError } from './errors';
import { TokenFile } from './token-file';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'token-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('TokenFile', () => {
  it('keeps the token for refreshMs, then reads the file again; invalidate reads at once', async () => {
    const path = join(dir, 'token');
    writeFileSync(path, 'one\n');
    let now = 1_000;
    const file = new TokenFile(path, 60_000, () => now);
    await expect(file.token()).resolves.toBe('one');
    writeFileSync(path, 'two');
    now += 59_999;
    await expect(file.token()).resolves.toBe('one');
    now += 1;
    await expect(file.token()).resolves.toBe('two');
    writeFileSync(path, 'three');
    file.invalidate();
    await expect(file.token()).resolves.toBe('three');
  });

  it('names a missing, empty or oversized file', async () => {
    const path = join(dir, 'token');
    const missing = await new TokenFile(path).token().catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ConnectionConfigError);
    expect((missing as Error).message).toBe(`token file ${path} cannot be read: ENOENT: no such file or directory, open '${path}'`);
    writeFileSync(path, ' \n');
    await expect(new TokenFile(path).token()).rejects.toThrow(`token file ${path} is empty`);
    writeFileSync(path, 'x'.repeat(64 * 1024 + 1));
    await expect(new TokenFile(path).token()).rejects.toThrow(`token file ${path} is larger than 65536 bytes`);
  });
});
