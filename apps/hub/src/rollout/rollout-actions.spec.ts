import { decideRollout, targetsToAdvance, type WaveMember } from './rollout';
import { decideOptions, rolledBack, type RolloutAction } from './rollout-actions';
import { wavesOf } from './wave-spec';

const R1 = 'v1@sha256:1111';
const R2 = 'v1@sha256:2222';
const act = (action: RolloutAction['action'], revision: string, wave?: number): RolloutAction => ({ action, revision, ...(wave === undefined ? {} : { wave }), by: 'ops', at: '2026-11-27T10:00:00.000Z' });
const member = (id: string, group: string, m: Partial<WaveMember> = {}): WaveMember => ({ id, group, phase: 'Ready', lastAppliedRevision: R1, healthySince: null, revisionSince: null, ...m });

describe('rollout actions', () => {
  it('approves waves for the revision they were given on only', () => {
    const options = decideOptions([act('approve', R1, 1), act('approve', R2, 2)], R2);
    expect([...options.approved!]).toEqual([2]);
    expect(options.onHold).toBe(false);
  });

  it('holds until a retry, whatever the revision', () => {
    expect(decideOptions([act('hold', R1)], R2).onHold).toBe(true);
    expect(decideOptions([act('hold', R1), act('retry', R2)], R2).onHold).toBe(false);
    expect(decideOptions([act('retry', R1), act('hold', R2), act('approve', R2, 1)], R2).onHold).toBe(true);
    expect(decideOptions(null, R2)).toEqual({ approved: new Set(), onHold: false });
  });

  it('on hold, keeps Targets on the revision and starts no other, nor opens the next wave', () => {
    const waves = wavesOf({ rolloutGroups: ['staging', 'prod'] });
    const members = [member('a', 'staging', { lastAppliedRevision: R2, healthySince: new Date(0), revisionSince: new Date(0) }), member('b', 'staging'), member('p', 'prod')];
    const d = decideRollout(waves, R2, members, new Date(1000), { onHold: true });
    expect(targetsToAdvance(d, members)).toEqual([]);
    expect(d.movable.has('a')).toBe(true);
    expect(d.waves[0].hold).toBe(`revision ${R2} waits for group staging to be released: the rollout is on hold`);
    expect(d.waves[1].hold).toBe(`revision ${R2} waits for group staging to be released: the rollout is on hold`);
    // staging had started; prod none of whose clusters moved waits
    expect(d.waves.map((w) => w.state)).toEqual(['progressing', 'waiting', 'waiting']);
    expect(targetsToAdvance(decideRollout(waves, R2, members, new Date(1000)), members)).toEqual(['b']);
  });

  it('keeps a rollback of a revision until a retry of it', () => {
    expect(decideOptions([act('rollback', R2, 1)], R2).rolledBackWave).toBe(1);
    expect(decideOptions([act('rollback', R1, 1)], R2).rolledBackWave).toBeUndefined();
    expect(rolledBack([act('rollback', R2, 0), act('retry', R2)], R2)).toBeUndefined();
    expect(rolledBack([act('retry', R2), act('rollback', R2, 0)], R2)).toMatchObject({ action: 'rollback', wave: 0 });
  });

  it('rolled back, the wave and those after it leave the revision; earlier waves keep it', () => {
    const waves = wavesOf({ rolloutGroups: ['staging', 'prod', 'eu'] });
    const healthy = { lastAppliedRevision: R2, healthySince: new Date(0), revisionSince: new Date(0) };
    const members = [member('s', 'staging', healthy), member('p', 'prod', { lastAppliedRevision: R2, revisionSince: new Date(0), phase: 'Ready' }), member('e', 'eu')];
    const d = decideRollout(waves, R2, members, new Date(1000), { rolledBackWave: 1 });
    expect(d.waves.map((w) => w.state)).toEqual(['done', 'rolledBack', 'waiting', 'waiting']);
    expect([...d.movable]).toEqual(['s']);
    expect(d.waves[1].hold).toBe(`revision ${R2} waits for group prod to be retried: rolled back after the wave failed`);
    expect(targetsToAdvance(d, members)).toEqual([]);
  });
});
