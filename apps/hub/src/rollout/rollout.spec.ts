import { projectHold, heldBack, rolloutGate, targetsToAdvance, waveOf } from './rollout';

const R1 = 'v1@sha256:1111';
const R2 = 'v1@sha256:2222';

describe('rollout waves', () => {
  const groups = ['staging', 'prod'];

  it('places unlisted groups after the listed ones', () => {
    expect(waveOf(groups, 'staging')).toBe(0);
    expect(waveOf(groups, 'prod')).toBe(1);
    expect(waveOf(groups, 'lab')).toBe(2);
  });

  it('is always open without groups', () => {
    expect(rolloutGate([], 'prod', R2, [{ group: 'staging', phase: 'Failed', lastAppliedRevision: R1 }])).toEqual({ open: true });
  });

  it('opens the first wave at once', () => {
    expect(rolloutGate(groups, 'staging', R2, [{ group: 'staging', phase: 'Ready', lastAppliedRevision: R1 }]).open).toBe(true);
  });

  it('holds a later wave until every earlier Target is Ready on that revision', () => {
    const members = [
      { group: 'staging', phase: 'Ready', lastAppliedRevision: R2 },
      { group: 'staging', phase: 'Ready', lastAppliedRevision: R1 },
      { group: 'prod', phase: 'Ready', lastAppliedRevision: R1 },
    ];
    expect(rolloutGate(groups, 'prod', R2, members)).toEqual({ open: false, waitingFor: 'staging' });
    members[1].lastAppliedRevision = R2;
    expect(rolloutGate(groups, 'prod', R2, members)).toEqual({ open: true });
  });

  it('halts on a failure in an earlier wave, even one on the right revision', () => {
    const members = [{ group: 'staging', phase: 'Failed', lastAppliedRevision: R2 }];
    expect(rolloutGate(groups, 'prod', R2, members).open).toBe(false);
    expect(rolloutGate(groups, 'lab', R2, members)).toEqual({ open: false, waitingFor: 'staging' });
  });

  it('gates the unlisted wave on every listed group', () => {
    const members = [
      { group: 'staging', phase: 'Ready', lastAppliedRevision: R2 },
      { group: 'prod', phase: 'Reconciling', lastAppliedRevision: R1 },
    ];
    expect(rolloutGate(groups, 'lab', R2, members)).toEqual({ open: false, waitingFor: 'prod' });
  });
});

describe('targetsToAdvance', () => {
  const groups = ['staging', 'prod'];
  const targets = [
    { id: 's1', group: 'staging', phase: 'Ready', lastAppliedRevision: R1 },
    { id: 's2', group: 'staging', phase: 'Ready', lastAppliedRevision: R2 },
    { id: 'p1', group: 'prod', phase: 'Ready', lastAppliedRevision: R1 },
  ];

  it('advances only the open wave, skipping Targets already there', () => {
    expect(targetsToAdvance(groups, R2, targets)).toEqual(['s1']);
  });

  it('advances the next wave once the first is Ready on the revision', () => {
    const done = targets.map((t) => (t.group === 'staging' ? { ...t, lastAppliedRevision: R2 } : t));
    expect(targetsToAdvance(groups, R2, done)).toEqual(['p1']);
  });

  it('after a Target of a group became Ready, advances only later waves (its own was already open)', () => {
    const done = [...targets.map((t) => (t.group === 'staging' ? { ...t, lastAppliedRevision: R2 } : t)), { id: 's3', group: 'staging', phase: 'Failed', lastAppliedRevision: R1 }];
    expect(targetsToAdvance(groups, R2, done.filter((t) => t.id !== 's3'), 'staging')).toEqual(['p1']);
    // a failed sibling in the same wave is retried on its backoff, not made due by the other's success
    expect(targetsToAdvance(groups, R2, done, 'staging')).toEqual([]);
  });

  it('advances everything without groups, but never suspended or deleting Targets', () => {
    expect(targetsToAdvance([], R2, [...targets, { id: 'x', group: 'prod', phase: 'Suspended', lastAppliedRevision: null }])).toEqual(['s1', 'p1']);
  });
});

describe('heldBack', () => {
  const groups = ['staging', 'production'];
  const targets = [
    { id: 's', group: 'staging', phase: 'Ready', lastAppliedRevision: 'v1' },
    { id: 'p', group: 'production', phase: 'Ready', lastAppliedRevision: 'v1' },
    { id: 'x', group: 'other', phase: 'Ready', lastAppliedRevision: 'v1' },
  ];
  it('names the groups held and the group they wait for', () => {
    expect(heldBack(groups, 'v2', targets, new Set(['s']))).toBe('revision v2 waits in groups production, other for group staging to be Ready on it');
  });
  it('says nothing when every Target moves or is there', () => {
    expect(heldBack(groups, 'v2', targets, new Set(['s', 'p', 'x']))).toBeUndefined();
    expect(heldBack(groups, 'v1', targets, new Set())).toBeUndefined();
    expect(heldBack([], 'v2', targets, new Set())).toBeUndefined();
  });
});

describe('projectHold', () => {
  it('says per revision which groups wait for which, in wave order, from the held Targets’ messages', () => {
    const held = [
      { group: 'other', message: 'revision v2 waits for group staging to be Ready on it; correcting drift on v1 meanwhile' },
      { group: 'production', message: 'revision v2 waits for group staging to be Ready on it' },
      { group: 'production', message: 'revision v2 waits for group staging to be Ready on it' },
    ];
    expect(projectHold(['staging', 'production', 'other'], held)).toBe('revision v2 waits in groups production, other for group staging to be Ready on it');
    expect(projectHold(['staging'], [])).toBeUndefined();
  });
});
