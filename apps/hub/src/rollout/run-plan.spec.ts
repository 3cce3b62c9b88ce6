import type { ProjectEntity, TargetEntity } from '../database/entities';
import { needsMembers, planRun } from './run-plan';

const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;
const NOW = new Date('2026-11-27T10:00:00Z');
const EARLIER = new Date('2026-11-27T09:00:00Z');

function project(p: Partial<ProjectEntity> = {}): ProjectEntity {
  return { id: 'p', sourceTag: 'stable', sourceDigest: D2, rolloutGroups: [], rolloutWaves: [], deletionRequestedAt: null, ...p } as ProjectEntity;
}

function target(id: string, group: string, t: Partial<TargetEntity> = {}): TargetEntity {
  return { id, phase: 'Ready', lastAppliedRevision: null, removalRequestedAt: null, healthySince: null, revisionSince: null, cluster: { groupName: group }, ...t } as TargetEntity;
}

describe('planRun', () => {
  it('waits for a tag not resolved yet', () => {
    expect(planRun(project({ sourceDigest: null }), 'prod', target('t', 'prod'), [], NOW)).toEqual({ kind: 'pending' });
  });

  it('runs at the Project digest without waves', () => {
    expect(planRun(project(), 'prod', target('t', 'prod'), [], NOW)).toEqual({ kind: 'run', deleting: false, digest: D2 });
    expect(needsMembers(project(), target('t', 'prod'))).toBe(false);
  });

  it('deletes, with whatever digest is known, when the Project or the Target goes', () => {
    expect(planRun(project({ deletionRequestedAt: new Date(), sourceDigest: null }), 'prod', target('t', 'prod'), [], NOW)).toEqual({ kind: 'run', deleting: true, digest: null });
    const leaving = target('t', 'prod', { removalRequestedAt: new Date() });
    expect(planRun(project({ rolloutGroups: ['staging'] }), 'prod', leaving, [], NOW)).toEqual({ kind: 'run', deleting: true, digest: D2 });
    expect(needsMembers(project({ rolloutGroups: ['staging'] }), leaving)).toBe(false);
  });

  it('holds a later wave: on the digest it applied, or not at all when it applied none', () => {
    const waves = project({ rolloutGroups: ['staging', 'prod'] });
    const staging = target('s', 'staging', { lastAppliedRevision: `stable@${D1}` });
    const held = planRun(waves, 'prod', target('t', 'prod'), [staging], NOW);
    expect(held).toEqual({ kind: 'held', message: `revision stable@${D2} waits for group staging to be Ready and Healthy on it` });
    const pinned = planRun(waves, 'prod', target('t', 'prod', { lastAppliedRevision: `stable@${D1}` }), [staging], NOW);
    expect(pinned).toEqual({ kind: 'run', deleting: false, digest: D1, hold: held.kind === 'held' ? held.message : '' });
    expect(needsMembers(waves, target('t', 'prod'))).toBe(true);
  });

  it('opens the wave once every earlier Target is Ready on the revision, leaving aside Targets being removed', () => {
    const waves = project({ rolloutGroups: ['staging', 'prod'] });
    const ready = target('s1', 'staging', { lastAppliedRevision: `stable@${D2}`, healthySince: EARLIER, revisionSince: EARLIER });
    const leaving = target('s2', 'staging', { phase: 'Failed', removalRequestedAt: new Date() });
    expect(planRun(waves, 'prod', target('t', 'prod'), [ready, leaving], NOW)).toEqual({ kind: 'run', deleting: false, digest: D2 });
  });

  it('holds a later wave while the earlier one is Ready but not Healthy, and through its soak', () => {
    const waves = project({ rolloutGroups: ['staging', 'prod'], rolloutWaves: [{ groups: ['staging'], soak: '2h' }, { groups: ['prod'] }] });
    const unhealthy = target('s', 'staging', { lastAppliedRevision: `stable@${D2}`, revisionSince: NOW });
    expect(planRun(waves, 'prod', target('t', 'prod'), [unhealthy], NOW)).toEqual({ kind: 'held', message: `revision stable@${D2} waits for group staging to be Ready and Healthy on it` });
    const healthy = { ...unhealthy, healthySince: EARLIER } as TargetEntity;
    const soakEnd = new Date(EARLIER.getTime() + 7_200_000);
    expect(planRun(waves, 'prod', target('t', 'prod'), [healthy], NOW)).toEqual({ kind: 'held', message: `revision stable@${D2} waits for group staging to soak until ${soakEnd.toISOString()}` });
    expect(planRun(waves, 'prod', target('t', 'prod'), [healthy], soakEnd)).toEqual({ kind: 'run', deleting: false, digest: D2 });
  });

  it('counts the Target itself in its wave’s batch', () => {
    const waves = project({ rolloutGroups: ['prod'], rolloutWaves: [{ groups: ['prod'], maxConcurrent: 1 }] });
    const moving = target('a', 'prod', { lastAppliedRevision: `stable@${D2}`, revisionSince: NOW });
    expect(planRun(waves, 'prod', target('b', 'prod', { lastAppliedRevision: `stable@${D1}` }), [moving], NOW)).toMatchObject({ kind: 'run', digest: D1, hold: `revision stable@${D2} waits for group prod to free a batch slot: 1 of 1 moving` });
    expect(planRun(waves, 'prod', target('b', 'prod'), [], NOW)).toEqual({ kind: 'run', deleting: false, digest: D2 });
  });

  it('rolled back, runs a Target that took the revision at the last one it was Ready and Healthy on, and one that never was stays', () => {
    const waves = project({ rolloutGroups: ['staging'], rolloutActions: [{ action: 'rollback', revision: `stable@${D2}`, wave: 0, by: 'flotilla', at: NOW.toISOString() }] });
    const failing = target('s', 'staging', { lastAppliedRevision: `stable@${D2}`, lastHealthyRevision: `stable@${D1}`, revisionSince: EARLIER });
    const back = `revision stable@${D2} waits for group staging to be retried: rolled back after the wave failed`;
    expect(planRun(waves, 'staging', failing, [], NOW)).toEqual({ kind: 'run', deleting: false, digest: D1, hold: back });
    expect(planRun(waves, 'staging', { ...failing, lastHealthyRevision: null } as TargetEntity, [], NOW)).toEqual({ kind: 'run', deleting: false, digest: D2, hold: back });
    expect(planRun(waves, 'staging', target('n', 'staging'), [], NOW)).toEqual({ kind: 'held', message: back });
  });
});
