import { decideRollout, targetsToAdvance, type WaveMember } from './rollout';
import { rolloutOptions } from './rollout-options';
import { wavesOf } from './wave-spec';

const R1 = 'v1@sha256:1111';
const R2 = 'v1@sha256:2222';
const member = (id: string, group: string, m: Partial<WaveMember> = {}): WaveMember => ({ id, group, phase: 'Ready', lastAppliedRevision: R1, healthySince: new Date(0), revisionSince: new Date(0), ...m });
const night = { kind: 'deny' as const, schedule: '0 22 * * *', duration: '10h' };

describe('rolloutOptions', () => {
  it('closes the rollout inside a deny window, with the actions of the Project beside', () => {
    const project = { rolloutWindows: [night], rolloutActions: [{ action: 'approve' as const, revision: R2, wave: 1, by: 'ops', at: '2026-11-27T10:00:00.000Z' }] };
    expect(rolloutOptions(project, R2, new Date('2026-11-27T23:00:00Z'))).toEqual({ approved: new Set([1]), onHold: false, closed: 'inside the deny window deny "0 22 * * *" for 10h (UTC)' });
    expect(rolloutOptions(project, R2, new Date('2026-11-27T12:00:00Z'))).toEqual({ approved: new Set([1]), onHold: false });
  });

  it('outside a window, keeps Targets on the revision where they are and starts none, nor opens a wave', () => {
    const waves = wavesOf({ rolloutGroups: ['staging', 'prod'] });
    const members = [member('a', 'staging', { lastAppliedRevision: R2 }), member('b', 'staging'), member('p', 'prod')];
    const closed = decideRollout(waves, R2, members, new Date(1000), { closed: 'inside the deny window x' });
    expect(targetsToAdvance(closed, members)).toEqual([]);
    expect(closed.movable.has('a')).toBe(true);
    expect(closed.waves[0].hold).toBe(`revision ${R2} waits for group staging to be in a rollout window: inside the deny window x`);
    expect(targetsToAdvance(decideRollout(waves, R2, members, new Date(1000)), members)).toEqual(['b']);
  });
});
