import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A cluster of the demo fleet as the hub knows it. */
export interface DemoCluster {
  name: string;
  group: string;
  mode: 'push' | 'agent';
  server: string;
}

/**
 * What `npm run demo` leaves in the demo directory (state.json): the
 * supervisor's process id, which is also the id of the process group every
 * service of the demo runs in, and, once it is up, how to reach the hub.
 */
export interface DemoState {
  pid: number;
  startedAt: string;
  phase: 'starting' | 'ready' | 'failed';
  hubUrl?: string;
  adminToken?: string;
  project?: string;
  clusters?: DemoCluster[];
  error?: string;
}

export const STATE_FILE = 'state.json';
export const LOG_FILE = 'demo.log';

export function readState(dir: string): DemoState | undefined {
  const file = join(dir, STATE_FILE);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as DemoState;
  } catch {
    return undefined; // being written: the caller polls again
  }
}

/** Writes the state atomically (a reader never sees half a file); mode 0600, as it holds the admin token. */
export function writeState(dir: string, state: DemoState): void {
  const file = join(dir, STATE_FILE);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/** State letter and process group of `pid` from /proc (Linux), or undefined once it is gone. */
function procStat(pid: number): { state: string; pgrp: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) S ppid pgrp ...": comm may hold spaces and parentheses
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state, pgrp: Number(pgrp) };
  } catch {
    return undefined;
  }
}

/**
 * Live processes of group `pgid`. A zombie does not count: where nothing
 * reaps orphans (PID 1 of some containers) an exited process lingers as one.
 */
export function groupMembers(pgid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      const stat = procStat(pid);
      return stat !== undefined && stat.pgrp === pgid && stat.state !== 'Z';
    });
}

export function processAlive(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== 'Z';
}
