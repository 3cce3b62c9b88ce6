import { decideRollout, heldBack, projectHold, rollbackTargets, rolloutGate, targetsToAdvance, type WaveMember } from './rollout';
import { wavesOf, type WaveSpec } from './wave-spec';

const R1 = 'v1@sha256:1111';
const R2 = 'v1@sha256:2222';
const T0 = new Date('2026-11-27T10:00:00Z');
const at = (s: number) => new Date(T0.getTime() + s * 1000);

function member(id: string, group: string, m: Partial<WaveMember> = {}): WaveMember {
  return { id, group, phase: 'Ready', lastAppliedRevision: R1, healthySince: at(-3600), revisionSince: at(-3600), ...m };
}
/** Ready and Healthy on R2 since `s` seconds after T0. */
const healthyOn2 = (s: number): Partial<WaveMember> => ({ lastAppliedRevision: R2, healthySince: at(s), revisionSince: at(s) });
const waves = (...specs: WaveSpec[]) => wavesOf({ rolloutGroups: specs.flatMap((s) => s.groups), rolloutWaves: specs });
const groups = (...gs: string[]) => wavesOf({ rolloutGroups: gs });

describe('rollout waves gated on health', () => {
  it('places unlisted groups in one last wave', () => {
    const w = groups('staging', 'prod');
    const d = decideRollout(w, R2, [member('s', 'staging'), member('p', 'prod'), member('x', 'lab')], T0);
    expect([...d.members.values()].map((m) => m.wave)).toEqual([0, 1, 2]);
    expect(d.waves.map((s) => s.state)).toEqual(['progressing', 'waiting', 'waiting']);
  });

  it('opens the first wave at once, and moves no Target of a later one', () => {
    const members = [member('s', 'staging'), member('p', 'prod')];
    const d = decideRollout(groups('staging', 'prod'), R2, members, T0);
    expect(targetsToAdvance(d, members)).toEqual(['s']);
    expect(rolloutGate(d, 'p')).toEqual({ open: false, message: `revision ${R2} waits for group staging to be Ready and Healthy on it` });
  });

  it('holds a later wave while an earlier Target is Ready but not Healthy on the revision', () => {
    const members = [member('s', 'staging', { lastAppliedRevision: R2, healthySince: null, revisionSince: at(0) }), member('p', 'prod')];
    const d = decideRollout(groups('staging', 'prod'), R2, members, at(60));
    expect(d.waves[0]).toMatchObject({ state: 'progressing', progressing: 1, healthy: 0 });
    expect(rolloutGate(d, 'p').open).toBe(false);
    members[0].healthySince = at(61);
    expect(rolloutGate(decideRollout(groups('staging', 'prod'), R2, members, at(61)), 'p')).toEqual({ open: true });
  });

  it('opens the next wave only once the earlier one stayed healthy for its soak, measured from its last Target to become healthy', () => {
    const w = waves({ groups: ['staging'], soak: '10m' }, { groups: ['prod'] });
    const members = [member('s1', 'staging', healthyOn2(0)), member('s2', 'staging', healthyOn2(120)), member('p', 'prod')];
    const soaking = decideRollout(w, R2, members, at(600));
    expect(soaking.waves[0]).toMatchObject({ state: 'soaking', soakUntil: at(720), healthy: 2 });
    expect(rolloutGate(soaking, 'p')).toEqual({ open: false, message: `revision ${R2} waits for group staging to soak until ${at(720).toISOString()}` });
    const done = decideRollout(w, R2, members, at(720));
    expect(done.waves.map((s) => s.state)).toEqual(['done', 'progressing', 'waiting']);
    expect(targetsToAdvance(done, members)).toEqual(['p']);
  });

  it('restarts the soak when a Target stops being healthy and becomes healthy again', () => {
    const w = waves({ groups: ['staging'], soak: '10m' }, { groups: ['prod'] });
    const members = [member('s', 'staging', healthyOn2(0)), member('p', 'prod')];
    members[0].healthySince = null;
    expect(decideRollout(w, R2, members, at(500)).waves[0].state).toBe('progressing');
    members[0].healthySince = at(500);
    expect(decideRollout(w, R2, members, at(1000)).waves[0]).toMatchObject({ state: 'soaking', soakUntil: at(1100) });
  });

  it('counts a Target not Healthy within its progress deadline as failed, and a failure past the budget halts the rollout', () => {
    const w = waves({ groups: ['staging'], progressDeadline: '5m' }, { groups: ['prod'] });
    const members = [member('s', 'staging', { lastAppliedRevision: R2, healthySince: null, revisionSince: at(0) }), member('p', 'prod')];
    expect(decideRollout(w, R2, members, at(299)).waves[0].state).toBe('progressing');
    const failed = decideRollout(w, R2, members, at(300));
    expect(failed.waves[0]).toMatchObject({ state: 'failed', failed: 1, failureBudget: 0 });
    expect(failed.waves[1].state).toBe('waiting');
    expect(rolloutGate(failed, 'p').message).toBe(`revision ${R2} waits for group staging to recover: 1 of 1 Target(s) failed, 0 allowed`);
    // the failed Target itself stays on the revision (drift correction, a retry may heal it)
    expect(rolloutGate(failed, 's')).toEqual({ open: true });
  });

  it('keeps a Target that failed the revision failed while it runs its retry: no wave state flickers, no second nudge past its backoff', () => {
    const w = groups('staging', 'prod');
    const retrying = [member('s', 'staging', { phase: 'Reconciling', attempt: 2 }), member('p', 'prod')];
    const d = decideRollout(w, R2, retrying, T0);
    expect(d.waves[0]).toMatchObject({ state: 'failed', failed: 1, pending: 0 });
    expect(rolloutGate(d, 'p').message).toBe(`revision ${R2} waits for group staging to recover: 1 of 1 Target(s) failed, 0 allowed`);
    // its retry runs on its own backoff: the wave does not make it due again
    expect(targetsToAdvance(d, retrying)).toEqual([]);
    // a first run (no failure before it) is on its way, not failed
    const first = [member('s', 'staging', { phase: 'Reconciling', attempt: 0 }), member('p', 'prod')];
    expect(decideRollout(w, R2, first, T0).waves[0]).toMatchObject({ state: 'progressing', failed: 0, pending: 1 });
  });

  it('rolls back from the failed wave on: the Targets on the revision and those failing it, a retry in flight included', () => {
    const w = groups('canary', 'staging', 'prod');
    const members = [
      member('canary', 'canary', healthyOn2(0)),
      member('on', 'staging', healthyOn2(0)),
      member('failed', 'staging', { phase: 'Failed' }),
      member('retrying', 'staging', { phase: 'Reconciling', attempt: 1 }),
      member('first', 'staging', { phase: 'Reconciling', attempt: 0 }),
      member('later', 'prod', { lastAppliedRevision: R2 }),
      member('untouched', 'prod'),
    ];
    expect(rollbackTargets(w, R2, 1, members)).toEqual(['on', 'failed', 'retrying', 'later']);
  });

  it('lets a wave finish within its failure budget, a count or a percentage', () => {
    const members = [
      member('a', 'staging', healthyOn2(0)),
      member('b', 'staging', { phase: 'Failed' }),
      member('c', 'staging', healthyOn2(0)),
      member('d', 'staging', healthyOn2(0)),
      member('p', 'prod'),
    ];
    for (const maxFailures of [1, '25%'] as const) {
      const d = decideRollout(waves({ groups: ['staging'], maxFailures }, { groups: ['prod'] }), R2, members, at(10));
      expect(d.waves[0]).toMatchObject({ state: 'done', failed: 1, failureBudget: 1, healthy: 3 });
      expect(targetsToAdvance(d, members)).toEqual(['p']);
    }
    // 24% of 4 rounds down to none
    expect(decideRollout(waves({ groups: ['staging'], maxFailures: '24%' }, { groups: ['prod'] }), R2, members, at(10)).waves[0].state).toBe('failed');
  });

  it('moves at most maxConcurrent Targets of a wave at once, the next as one becomes healthy', () => {
    const w = waves({ groups: ['prod'], maxConcurrent: 2 });
    const members = ['a', 'b', 'c', 'd', 'e'].map((id) => member(id, 'prod'));
    const first = decideRollout(w, R2, members, T0);
    expect(first.waves[0].batchSize).toBe(2);
    expect(targetsToAdvance(first, members)).toEqual(['a', 'b']);
    expect(rolloutGate(first, 'c').message).toBe(`revision ${R2} waits for group prod to free a batch slot: 0 of 2 moving`);
    // a and b applied; a is healthy, b not yet: one slot
    Object.assign(members[0], healthyOn2(5));
    Object.assign(members[1], { lastAppliedRevision: R2, healthySince: null, revisionSince: at(5) });
    expect(targetsToAdvance(decideRollout(w, R2, members, at(6)), members)).toEqual(['c']);
  });

  it('sizes a percentage batch on the wave, at least one', () => {
    const members = ['a', 'b', 'c', 'd', 'e'].map((id) => member(id, 'prod'));
    expect(targetsToAdvance(decideRollout(waves({ groups: ['prod'], maxConcurrent: '40%' }), R2, members, T0), members)).toEqual(['a', 'b']);
    expect(targetsToAdvance(decideRollout(waves({ groups: ['prod'], maxConcurrent: '10%' }), R2, members, T0), members)).toEqual(['a']);
  });

  it('stops starting Targets of a wave that went past its budget', () => {
    const w = waves({ groups: ['prod'], maxConcurrent: 1 });
    const members = [member('a', 'prod', { lastAppliedRevision: R2, phase: 'Failed', healthySince: null, revisionSince: at(0) }), member('b', 'prod')];
    const d = decideRollout(w, R2, members, at(1));
    expect(d.waves[0].state).toBe('failed');
    expect(targetsToAdvance(d, members)).toEqual([]);
  });

  it('does not make a Target that failed moving to the revision due again (it retries on its backoff)', () => {
    const members = [member('a', 'prod', { phase: 'Failed' }), member('b', 'prod')];
    const d = decideRollout(waves({ groups: ['prod'], maxFailures: 1 }), R2, members, T0);
    expect(targetsToAdvance(d, members)).toEqual(['b']);
    expect(rolloutGate(d, 'a').open).toBe(true);
  });

  it('holds a wave that needs approval until it is approved for the revision', () => {
    const w = waves({ groups: ['staging'] }, { groups: ['prod'], approval: true });
    const members = [member('s', 'staging', healthyOn2(0)), member('p', 'prod')];
    const waiting = decideRollout(w, R2, members, at(1));
    expect(waiting.waves[1].state).toBe('awaitingApproval');
    expect(rolloutGate(waiting, 'p').message).toBe(`revision ${R2} waits for group prod to be approved`);
    expect(targetsToAdvance(decideRollout(w, R2, members, at(1), { approved: new Set([1]) }), members)).toEqual(['p']);
  });

  it('holds a wave outside its own window, and the waves after it, but not the waves before', () => {
    // T0 is a Friday 10:00 UTC; prod may start revisions only on weekdays 12:00–14:00
    const window = { kind: 'allow' as const, schedule: '0 12 * * 1-5', duration: '2h' };
    const w = waves({ groups: ['staging'] }, { groups: ['prod'], windows: [window] }, { groups: ['lab'] });
    const members = [member('s', 'staging'), member('p', 'prod'), member('l', 'lab')];
    expect(targetsToAdvance(decideRollout(w, R2, members, T0), members)).toEqual(['s']);
    members[0] = member('s', 'staging', healthyOn2(60));
    const closed = decideRollout(w, R2, members, at(120));
    // prod has not started: none of its clusters moved before its window closed
    expect(closed.waves.map((x) => x.state)).toEqual(['done', 'waiting', 'waiting', 'waiting']);
    expect(closed.waves[1].windowClosed).toBe('outside every allow window (allow "0 12 * * 1-5" for 2h (UTC))');
    expect(targetsToAdvance(closed, members)).toEqual([]);
    expect(rolloutGate(closed, 'p').message).toBe(`revision ${R2} waits for group prod to be in its rollout window: outside every allow window (allow "0 12 * * 1-5" for 2h (UTC))`);
    expect(rolloutGate(closed, 'l').open).toBe(false);
    const open = decideRollout(w, R2, members, at(2 * 3600));
    expect(open.waves[1].windowClosed).toBeUndefined();
    expect(targetsToAdvance(open, members)).toEqual(['p']);
  });

  it('lets a wave outside its window keep the revision its clusters already run', () => {
    const deny = { kind: 'deny' as const, schedule: '0 0 * * *', duration: '24h' };
    const w = waves({ groups: ['prod'], windows: [deny] });
    const members = [member('p1', 'prod', healthyOn2(0)), member('p2', 'prod')];
    const d = decideRollout(w, R2, members, at(60));
    expect(d.waves[0].windowClosed).toMatch(/^inside the deny window/);
    // started before the window closed: it stays progressing
    expect(d.waves[0].state).toBe('progressing');
    expect(rolloutGate(d, 'p1')).toEqual({ open: true });
    expect(rolloutGate(d, 'p2').open).toBe(false);
  });

  it('never advances suspended or deleting Targets, and an empty wave is done at once', () => {
    const members = [member('s', 'staging', { phase: 'Suspended' }), member('p', 'prod')];
    const d = decideRollout(groups('lab', 'staging', 'prod'), R2, members, T0);
    expect(d.waves[0].state).toBe('done');
    expect(targetsToAdvance(d, members)).toEqual([]);
  });
});

describe('heldBack and projectHold', () => {
  const w = groups('staging', 'production');
  const members = [member('s', 'staging'), member('p', 'production'), member('x', 'other')];

  it('names the groups held and the group they wait for', () => {
    const d = decideRollout(w, R2, members, T0);
    expect(heldBack(w, d, members)).toBe(`revision ${R2} waits in groups production, other for group staging to be Ready and Healthy on it`);
  });

  it('says nothing when nothing is held', () => {
    expect(heldBack(w, decideRollout(w, R1, members, T0), members)).toBeUndefined();
  });

  it('says per revision and reason which groups wait for which, in wave order, from the held Targets’ messages', () => {
    const held = [
      { group: 'other', message: 'revision v2 waits for group staging to be Ready and Healthy on it; correcting drift on v1 meanwhile' },
      { group: 'production', message: 'revision v2 waits for group staging to be Ready and Healthy on it' },
      { group: 'production', message: 'revision v2 waits for group production to free a batch slot: 2 of 2 moving' },
      { group: 'production', message: 'not a hold' },
    ];
    expect(projectHold(groups('staging', 'production', 'other'), held)).toBe(
      'revision v2 waits in groups production, other for group staging to be Ready and Healthy on it; revision v2 waits in group production for group production to free a batch slot: 2 of 2 moving',
    );
    expect(projectHold(w, [])).toBeUndefined();
  });
});
