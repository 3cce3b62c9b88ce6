import { eventually, overlappingRuns } from './eventually';

describe('eventually', () => {
  it('returns the first defined value', async () => {
    let n = 0;
    await expect(eventually('three calls', async () => (++n === 3 ? n : undefined), { timeoutMs: 1000, intervalMs: 1 })).resolves.toBe(3);
  });

  it('names what it waited for, the last error and the last state seen', async () => {
    const failing = eventually(
      'the Target to be Ready',
      async () => {
        throw new Error('HTTP 503');
      },
      { timeoutMs: 20, intervalMs: 5, observe: async () => ({ phase: 'Failed' }) },
    );
    await expect(failing).rejects.toThrow(/waiting for the Target to be Ready\nlast error: HTTP 503\nlast seen: \{\n {2}"phase": "Failed"/);
  });
});

describe('overlappingRuns', () => {
  const run = (id: string, start: number, end: number | null) => ({ id, startedAt: new Date(start).toISOString(), finishedAt: end === null ? null : new Date(end).toISOString() });

  it('accepts runs one after another, in any order', () => {
    expect(overlappingRuns([run('b', 20, 30), run('a', 0, 20)])).toEqual([]);
  });

  it('reports a run that started before the previous one ended, or while one never finished', () => {
    expect(overlappingRuns([run('a', 0, 20), run('b', 10, 30)])).toHaveLength(1);
    expect(overlappingRuns([run('a', 0, null), run('b', 50, 60)])[0]).toMatch(/before run a .* finished \(never\)/);
  });
});
