import { decideRollout, type WaveMember } from './rollout';
import { waveEvent } from './wave-event';
import { sameWaves, waveTransitions } from './wave-transitions';
import { wavesOf, type WaveSpec } from './wave-spec';

const R1 = 'v1@sha256:1111';
const R2 = 'v1@sha256:2222';
const T0 = new Date('2026-11-27T10:00:00Z');
const at = (s: number) => new Date(T0.getTime() + s * 1000);
const MIN = 60_000;

const member = (id: string, group: string, m: Partial<WaveMember> = {}): WaveMember => ({ id, group, phase: 'Ready', lastAppliedRevision: R1, healthySince: at(-3600), revisionSince: at(-3600), ...m });
const waves = (...specs: WaveSpec[]) => wavesOf({ rolloutGroups: specs.flatMap((s) => s.groups), rolloutWaves: specs });
const W = waves({ groups: ['staging'], soak: '10m' } as unknown as WaveSpec, { groups: ['prod'] } as unknown as WaveSpec);

describe('wave transitions', () => {
  it('tells the first wave opening on a new revision, and only that', () => {
    const d = decideRollout(W, R2, [member('s', 'staging'), member('p', 'prod')], T0);
    const { next, transitions } = waveTransitions({ revision: '', states: [] }, R2, d.waves);
    expect(next).toEqual({ revision: R2, states: ['progressing', 'waiting', 'waiting'] });
    expect(transitions).toEqual([{ wave: 0, groups: ['staging'], from: 'waiting', to: 'progressing', revision: R2, total: 1, healthy: 0, progressing: 0, pending: 1, failed: 0 }]);
  });

  it('tells soaking, then done and the next wave opening, once each', () => {
    const on2 = { lastAppliedRevision: R2, healthySince: at(0), revisionSince: at(0) };
    const soaking = decideRollout(W, R2, [member('s', 'staging', on2), member('p', 'prod')], at(60));
    const first = waveTransitions({ revision: R2, states: ['progressing', 'waiting'] }, R2, soaking.waves);
    expect(first.transitions.map((t) => [t.wave, t.from, t.to])).toEqual([[0, 'progressing', 'soaking']]);
    // the same facts again: nothing new to tell, nothing to write
    const again = waveTransitions(first.next, R2, soaking.waves);
    expect(again.transitions).toEqual([]);
    expect(sameWaves(first.next, again.next)).toBe(true);

    const soaked = decideRollout(W, R2, [member('s', 'staging', on2), member('p', 'prod')], new Date(T0.getTime() + 11 * MIN));
    const second = waveTransitions(first.next, R2, soaked.waves);
    expect(second.transitions.map((t) => [t.wave, t.from, t.to])).toEqual([
      [0, 'soaking', 'done'],
      [1, 'waiting', 'progressing'],
    ]);
    expect(sameWaves(first.next, second.next)).toBe(false);
  });

  it('starts a new revision from every wave waiting, whatever the last one reached', () => {
    const d = decideRollout(W, R2, [member('s', 'staging'), member('p', 'prod')], T0);
    const { transitions } = waveTransitions({ revision: R1, states: ['progressing', 'waiting'] }, R2, d.waves);
    expect(transitions.map((t) => [t.wave, t.from, t.to])).toEqual([[0, 'waiting', 'progressing']]);
  });

  it('takes what it sees first as announced when nothing was ever stored (a Project from before notices)', () => {
    const d = decideRollout(W, R2, [member('s', 'staging'), member('p', 'prod')], T0);
    const { next, transitions } = waveTransitions(null, R2, d.waves);
    expect(transitions).toEqual([]);
    expect(next.states).toEqual(['progressing', 'waiting', 'waiting']);
    expect(sameWaves(null, next)).toBe(false);
  });

  it('stores a wave falling back to waiting without telling it', () => {
    const d = decideRollout(W, R2, [member('s', 'staging'), member('p', 'prod')], T0, { approved: new Set() });
    const { next, transitions } = waveTransitions({ revision: R2, states: ['progressing', 'progressing', 'waiting'] }, R2, d.waves);
    expect(transitions).toEqual([]);
    expect(next.states).toEqual(['progressing', 'waiting', 'waiting']);
  });

  it('does not tell of the implicit wave of unlisted groups while no cluster is in it', () => {
    const on2 = { lastAppliedRevision: R2, healthySince: at(0), revisionSince: at(0) };
    const d = decideRollout(W, R2, [member('s', 'staging', on2), member('p', 'prod', on2)], new Date(T0.getTime() + 11 * MIN));
    expect(d.waves.map((w) => w.state)).toEqual(['done', 'done', 'done']);
    const { next, transitions } = waveTransitions({ revision: R2, states: ['soaking', 'progressing', 'waiting'] }, R2, d.waves);
    expect(transitions.map((t) => [t.wave, t.to])).toEqual([
      [0, 'done'],
      [1, 'done'],
    ]);
    expect(next.states).toEqual(['done', 'done', 'done']);
    // with a cluster in it, it is a wave like the others
    const lab = decideRollout(W, R2, [member('s', 'staging', on2), member('p', 'prod', on2), member('l', 'lab')], new Date(T0.getTime() + 11 * MIN));
    expect(waveTransitions(next, R2, lab.waves).transitions.map((t) => [t.wave, t.groups, t.to])).toEqual([[2, [], 'progressing']]);
  });

  it('words the event with wave, groups, state, revision and counts; failures and rollbacks are Warnings', () => {
    const t = { wave: 1, groups: ['prod', 'prod-eu'], from: 'progressing' as const, to: 'failed' as const, revision: R2, total: 3, healthy: 1, progressing: 0, pending: 0, failed: 2 };
    const event = waveEvent('p-1', t);
    expect(event).toEqual({
      projectId: 'p-1',
      clusterName: null,
      type: 'Warning',
      reason: 'WaveFailed',
      message: `wave 1 (prod, prod-eu) is failed on revision ${R2} (was progressing): 1 of 3 healthy, 0 moving, 0 waiting, 2 failed`,
      revision: R2,
      cdevent: 'environment.modified',
      wave: { index: 1, groups: ['prod', 'prod-eu'], state: 'failed', previous: 'progressing', total: 3, healthy: 1, progressing: 0, pending: 0, failed: 2 },
    });
    expect(waveEvent('p-1', { ...t, to: 'done', from: 'soaking' })).toMatchObject({ type: 'Normal', reason: 'WaveDone' });
    expect(waveEvent('p-1', { ...t, to: 'rolledBack', from: 'failed' })).toMatchObject({ type: 'Warning', reason: 'WaveRolledBack' });
  });
});
