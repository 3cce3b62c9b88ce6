import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';

// The generated code is committed so a fresh clone builds without the
// generator; this keeps it honest: the contract lints, and regenerating it
// with the kept toolchain (buf + ts-proto from node_modules, offline) gives
// the committed files byte for byte.

const root = resolve(__dirname, '../../..');
const buf = join(root, 'node_modules/.bin/buf');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe('proto contract', () => {
  it('passes buf lint', () => {
    const res = spawnSync(buf, ['lint'], { cwd: root, encoding: 'utf8' });
    expect(res.stdout + res.stderr).toBe('');
    expect(res.status).toBe(0);
  });

  it('regenerates to exactly the committed code', () => {
    const out = mkdtempSync(join(tmpdir(), 'proto-gen-'));
    try {
      const res = spawnSync(buf, ['generate', '-o', out], { cwd: root, encoding: 'utf8' });
      expect(res.stderr).toBe('');
      const committedDir = join(root, 'libs/agent-protocol/src/generated');
      const fresh = files(join(out, 'libs/agent-protocol/src/generated')).map((f) => relative(out, f)).sort();
      expect(fresh).toEqual(files(committedDir).map((f) => relative(root, f)).sort());
      for (const f of fresh) expect(readFileSync(join(out, f), 'utf8')).toBe(readFileSync(join(root, f), 'utf8'));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
