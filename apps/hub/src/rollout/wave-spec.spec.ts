import { amountOf, parseAmount, waveIndex, wavesOf } from './wave-spec';

describe('wave spec', () => {
  it('reads counts and percentages, and nothing else', () => {
    expect(parseAmount(3)).toEqual({ count: 3 });
    expect(parseAmount('25%')).toEqual({ percent: 25 });
    expect(parseAmount('100%')).toEqual({ percent: 100 });
    for (const bad of ['101%', '%', '2.5%', '-1%', '5', ' 5%', '0005%']) expect(parseAmount(bad)).toBeUndefined();
    expect(parseAmount(-1)).toBeUndefined();
    expect(parseAmount(1.5)).toBeUndefined();
  });

  it('rounds a percentage of the wave down', () => {
    expect(amountOf({ percent: 25 }, 7)).toBe(1);
    expect(amountOf({ count: 4 }, 2)).toBe(4);
  });

  it('makes each group of rollout.groups a wave with the defaults, and adds a last wave for unlisted groups', () => {
    const waves = wavesOf({ rolloutGroups: ['a', 'b'] });
    expect(waves).toHaveLength(3);
    expect(waves[0]).toEqual({ groups: ['a'], soakMs: 0, maxConcurrent: null, maxFailures: { count: 0 }, approval: false, progressDeadlineMs: 600_000, windows: [] });
    expect(waveIndex(waves, 'b')).toBe(1);
    expect(waveIndex(waves, 'zzz')).toBe(2);
    expect(wavesOf({ rolloutGroups: [] })).toEqual([]);
  });

  it('takes rollout.waves with their gates when given', () => {
    const waves = wavesOf({ rolloutGroups: ['a', 'b', 'c'], rolloutWaves: [{ groups: ['a'], soak: '1h30m', maxConcurrent: '50%', maxFailures: 2, approval: true, progressDeadline: '2m' }, { groups: ['b', 'c'] }] });
    expect(waves[0]).toEqual({ groups: ['a'], soakMs: 5_400_000, maxConcurrent: { percent: 50 }, maxFailures: { count: 2 }, approval: true, progressDeadlineMs: 120_000, windows: [] });
    expect(waveIndex(waves, 'c')).toBe(1);
  });
});
