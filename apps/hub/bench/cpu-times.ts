// CPU seconds spent by processes and their resident memory, from /proc
// (Linux): where a benchmark's time goes between the hub, its load generator
// and PostgreSQL, and what the hub's own process holds.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on every Linux the benches run on

function stat(pid: number): string[] | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name may hold spaces: fields start after its closing parenthesis
    return s.slice(s.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** user + system CPU seconds of a process, with its reaped children's when `children`. */
export function cpuSeconds(pid: number, children = false): number {
  const f = stat(pid);
  if (!f) return 0;
  // fields 14–17 of stat (utime, stime, cutime, cstime) are 11–14 here
  const own = Number(f[11]) + Number(f[12]);
  return (children ? own + Number(f[13]) + Number(f[14]) : own) / TICKS_PER_SECOND;
}

/** A postmaster and its live backends, plus the backends that already exited. */
export function postgresCpuSeconds(dataDir: string): number {
  const postmaster = Number(readFileSync(`${dataDir}/postmaster.pid`, 'utf8').split('\n')[0]);
  let total = cpuSeconds(postmaster, true);
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const f = stat(Number(name));
    if (f && Number(f[1]) === postmaster) total += cpuSeconds(Number(name));
  }
  return total;
}

/** The command name the kernel keeps for a process (`node`, `postgres`); undefined once it is gone. */
export function commandName(pid: number): string | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return s.slice(s.indexOf('(') + 1, s.lastIndexOf(')'));
  } catch {
    return undefined;
  }
}

/** CPU seconds of a process's live descendants, summed by command name (API server, PostgreSQL, CUE helpers). */
export function descendantCpuSeconds(pid: number, into = new Map<string, number>()): Map<string, number> {
  let children: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) children.push(...readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
  } catch {
    children = []; // gone meanwhile
  }
  for (const child of children) {
    const name = commandName(child);
    if (name === undefined) continue;
    into.set(name, (into.get(name) ?? 0) + cpuSeconds(child));
    descendantCpuSeconds(child, into);
  }
  return into;
}

/** VmRSS of a process in bytes (0 when it is gone). */
export function residentBytes(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}
