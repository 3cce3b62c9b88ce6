import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `check` until it returns something other than undefined. On timeout
 * the error names what was awaited and shows the last state `observe` saw
 * (or the last error), so a failure says where things stopped.
 */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, options: { timeoutMs: number; intervalMs?: number; observe?: () => Promise<unknown> }): Promise<T> {
  const started = Date.now();
  let lastError: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() - started > options.timeoutMs) {
      let seen = '';
      if (options.observe) {
        try {
          seen = `\nlast seen: ${JSON.stringify(await options.observe(), null, 2)}`;
        } catch (err) {
          seen = `\nlast seen: (could not observe: ${String(err)})`;
        }
      }
      const cause = lastError ? `\nlast error: ${lastError instanceof Error ? lastError.message : String(lastError)}` : '';
      throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${what}${cause}${seen}`);
    }
    await sleep(options.intervalMs ?? 150);
  }
}

/** Pairs of time ranges (of one Target's runs) that overlap; empty when runs were strictly one after another. */
export function overlappingRuns(runs: ReadonlyArray<{ id: string; startedAt: string; finishedAt: string | null }>): string[] {
  const sorted = [...runs].sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt));
  const out: string[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1];
    const end = prev.finishedAt === null ? Number.POSITIVE_INFINITY : Date.parse(prev.finishedAt);
    if (Date.parse(sorted[i].startedAt) < end) out.push(`run ${sorted[i].id} started at ${sorted[i].startedAt} before run ${prev.id} (${prev.startedAt}) finished (${prev.finishedAt ?? 'never'})`);
  }
  return out;
}
