/** Runs `fn` over `items`, at most `limit` at once; resolves when all have settled, with the first error if any. */
export async function forEachLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const errors: unknown[] = [];
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const item = items[next++];
      await fn(item).catch((err: unknown) => void errors.push(err));
    }
  });
  await Promise.all(lanes);
  if (errors.length > 0) throw errors[0];
}
