import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

// Jest loads this module once per test file, at the file's load: the hook is that file's.
// Outside Jest (benchmarks) there is none and the directories stay; their callers remove them.
const jestAfterAll = (globalThis as { afterAll?: (fn: () => void) => void }).afterAll;
jestAfterAll?.(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory under the system's temporary one, removed when the test file that made it is done. */
export function testDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
