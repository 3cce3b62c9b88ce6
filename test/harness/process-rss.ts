import { readFileSync } from 'node:fs';

/** Resident set size of a running process in bytes (Linux /proc), or 0 once it is gone. */
export function processRssBytes(pid: number): number {
  try {
    const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB$/m);
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}
