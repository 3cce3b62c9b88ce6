// Part of npm run bench:cue: the reference every CUE figure is divided by —
// the same Go code built natively, running the same request in-process
// (cue-native bench: no IPC, no JSON over pipes, no Node).
import { spawnSync } from 'node:child_process';
import type { EvaluateRequest } from '@flotilla/cue';
import { toGoFiles } from '../src/files';

/** Microseconds of each of `n` evaluations of `req`, in one native process. */
export function nativeEvaluateTimes(binary: string, req: EvaluateRequest, n: number): number[] {
  const payload = { files: toGoFiles(req.files), tags: req.tags, tagVars: req.tagVars, checks: req.checks, exports: req.exports };
  const res = spawnSync(binary, ['bench', 'evaluate', String(n)], { input: JSON.stringify(payload), encoding: 'utf8', timeout: 120_000 });
  if (res.status !== 0) throw new Error(`cue-native bench failed (${res.error?.message ?? res.status}): ${res.stderr}`);
  return res.stdout.trim().split('\n').map((l) => Number(l) / 1000);
}
