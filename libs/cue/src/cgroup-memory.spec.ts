import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCgroupMemoryLimit } from './cgroup-memory';

// Fixture cgroup trees as a container sees them under /sys/fs/cgroup.
describe('readCgroupMemoryLimit', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'cgroup-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const v2 = (text: string) => writeFileSync(join(root, 'memory.max'), text);
  const v1 = (text: string) => {
    mkdirSync(join(root, 'memory'));
    writeFileSync(join(root, 'memory', 'memory.limit_in_bytes'), text);
  };

  it('reads a cgroup v2 limit', () => {
    v2('1073741824\n');
    expect(readCgroupMemoryLimit(root)).toBe(1073741824);
  });

  it('reads "max" as no limit', () => {
    v2('max\n');
    expect(readCgroupMemoryLimit(root)).toBeNull();
  });

  it('reads a cgroup v1 limit, and v1\'s huge number as no limit', () => {
    v1('536870912\n');
    expect(readCgroupMemoryLimit(root)).toBe(536870912);
    rmSync(join(root, 'memory'), { recursive: true });
    v1('9223372036854771712\n');
    expect(readCgroupMemoryLimit(root)).toBeNull();
  });

  it('prefers v2 when both are there', () => {
    v2('268435456\n');
    v1('536870912\n');
    expect(readCgroupMemoryLimit(root)).toBe(268435456);
  });

  it('has no limit without cgroup files, or with text that is no number', () => {
    expect(readCgroupMemoryLimit(root)).toBeNull();
    expect(readCgroupMemoryLimit(join(root, 'missing'))).toBeNull();
    v2('12ab\n');
    expect(readCgroupMemoryLimit(root)).toBeNull();
    v2('-1\n');
    expect(readCgroupMemoryLimit(root)).toBeNull();
  });
});
