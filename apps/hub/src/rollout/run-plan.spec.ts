import type { ProjectEntity, TargetEntity } from '../database/entities';
import { needsMembers, planRun } from './run-plan';

const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;

function project(p: Partial<ProjectEntity> = {}): ProjectEntity {
  return { id: 'p', sourceTag: 'stable', sourceDigest: D2, rolloutGroups: [], deletionRequestedAt: null, ...p } as ProjectEntity;
}

function target(id: string, group: string, t: Partial<TargetEntity> = {}): TargetEntity {
  return { id, phase: 'Ready', lastAppliedRevision: null, removalRequestedAt: null, cluster: { groupName: group }, ...t } as TargetEntity;
}

describe('planRun', () => {
  it('waits for a tag not resolved yet', () => {
    expect(planRun(project({ sourceDigest: null }), 'prod', target('t', 'prod'), [])).toEqual({ kind: 'pending' });
  });

  it('runs at the Project digest without waves', () => {
    expect(planRun(project(), 'prod', target('t', 'prod'), [])).toEqual({ kind: 'run', deleting: false, digest: D2 });
    expect(needsMembers(project(), target('t', 'prod'))).toBe(false);
  });

  it('deletes, with whatever digest is known, when the Project or the Target goes', () => {
    expect(planRun(project({ deletionRequestedAt: new Date(), sourceDigest: null }), 'prod', target('t', 'prod'), [])).toEqual({ kind: 'run', deleting: true, digest: null });
    const leaving = target('t', 'prod', { removalRequestedAt: new Date() });
    expect(planRun(project({ rolloutGroups: ['staging'] }), 'prod', leaving, [])).toEqual({ kind: 'run', deleting: true, digest: D2 });
    expect(needsMembers(project({ rolloutGroups: ['staging'] }), leaving)).toBe(false);
  });

  it('holds a later wave: on the digest it applied, or not at all when it applied none', () => {
    const waves = project({ rolloutGroups: ['staging', 'prod'] });
    const staging = target('s', 'staging', { lastAppliedRevision: `stable@${D1}` });
    const held = planRun(waves, 'prod', target('t', 'prod'), [staging]);
    expect(held).toEqual({ kind: 'held', message: `revision stable@${D2} waits for group staging to be Ready on it` });
    const pinned = planRun(waves, 'prod', target('t', 'prod', { lastAppliedRevision: `stable@${D1}` }), [staging]);
    expect(pinned).toEqual({ kind: 'run', deleting: false, digest: D1, hold: held.kind === 'held' ? held.message : '' });
    expect(needsMembers(waves, target('t', 'prod'))).toBe(true);
  });

  it('opens the wave once every earlier Target is Ready on the revision, leaving aside Targets being removed', () => {
    const waves = project({ rolloutGroups: ['staging', 'prod'] });
    const ready = target('s1', 'staging', { lastAppliedRevision: `stable@${D2}` });
    const leaving = target('s2', 'staging', { phase: 'Failed', removalRequestedAt: new Date() });
    expect(planRun(waves, 'prod', target('t', 'prod'), [ready, leaving])).toEqual({ kind: 'run', deleting: false, digest: D2 });
  });
});
