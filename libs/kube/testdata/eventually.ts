/**
 * Polls `probe` until it gives a truthy value (the positive signal) and
 * returns it; fails naming `what` after `timeoutMs`, which only bounds a
 * failing spec.
 */
export async function eventually<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 40_000): Promise<Exclude<T, false | 0 | '' | null | undefined>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as Exclude<T, false | 0 | '' | null | undefined>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
