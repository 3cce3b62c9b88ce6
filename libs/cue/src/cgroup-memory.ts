// The memory limit of the container this process runs in, read from its
// cgroup: v2 `memory.max`, else v1 `memory/memory.limit_in_bytes`. The CUE
// pool is sized from it, so content cannot push the process past the limit
// the kernel would kill it at.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

/** What a process runs in: its container's memory limit (null: none) and its CPUs. */
export interface ContainerResources {
  memoryLimitBytes: number | null;
  cpus: number;
}

/** This process's container, from its cgroup. */
export function currentContainer(): ContainerResources {
  return { memoryLimitBytes: readCgroupMemoryLimit(), cpus: availableParallelism() };
}

/** Where a container sees its own cgroup (the cgroup namespace makes it the root). */
export const CGROUP_ROOT = '/sys/fs/cgroup';

/** cgroup v1 writes "no limit" as the largest page-aligned 64-bit number; anything this large means none. */
const UNLIMITED_FROM = 2 ** 60;

/**
 * The memory limit in bytes under `root`, or null when there is none (no
 * cgroup files, "max", or v1's huge number). Never throws: a host without
 * cgroups runs unlimited.
 */
export function readCgroupMemoryLimit(root: string = CGROUP_ROOT): number | null {
  const v2 = readTrimmed(join(root, 'memory.max'));
  if (v2 !== undefined) return parseLimit(v2);
  const v1 = readTrimmed(join(root, 'memory', 'memory.limit_in_bytes'));
  if (v1 !== undefined) return parseLimit(v1);
  return null;
}

function readTrimmed(file: string): string | undefined {
  try {
    // a cgroup file is one short line; 64 bytes hold any limit
    return readFileSync(file, 'utf8').slice(0, 64).trim();
  } catch {
    return undefined;
  }
}

function parseLimit(text: string): number | null {
  if (text === 'max') return null;
  if (text.length === 0 || text.length > 20) return null;
  for (const c of text) if (c < '0' || c > '9') return null;
  const n = Number(text);
  return Number.isSafeInteger(n) && n > 0 && n < UNLIMITED_FROM ? n : null;
}
