import { renderRollout, type RolloutView } from './rollout';

const view: RolloutView = {
  project: 'shop',
  revision: 'stable@sha256:aa',
  onFailure: 'halt',
  onHold: false,
  waves: [
    { index: 0, groups: ['canary'], state: 'soaking', since: '2026-11-27T10:00:00.000Z', soakUntil: '2026-11-27T10:30:00.000Z', counts: { total: 2, pending: 0, progressing: 0, healthy: 2, failed: 0 }, failureBudget: 0, batchSize: null },
    { index: 1, groups: [], state: 'waiting', counts: { total: 3, pending: 3, progressing: 0, healthy: 0, failed: 0 }, failureBudget: 1, batchSize: 2, message: 'revision stable@sha256:aa waits for group canary to soak until 2026-11-27T10:30:00.000Z' },
  ],
  actions: [{ action: 'approve', revision: 'stable@sha256:aa', wave: 1, by: 'alice@example.com', at: '2026-11-27T09:00:00.000Z' }],
};

describe('renderRollout', () => {
  it('draws one row per wave, what the rollout waits for and the actions taken', () => {
    expect(renderRollout(view)).toBe(
      [
        'project/shop: revision stable@sha256:aa',
        'WAVE   GROUPS     STATE     HEALTHY   MOVING   FAILED/BUDGET   BATCH   SINCE',
        '0      canary     soaking   2/2       0        0/0             all     until 2026-11-27T10:30:00.000Z',
        '1      (others)   waiting   0/3       0        0/1             2',
        'waiting: revision stable@sha256:aa waits for group canary to soak until 2026-11-27T10:30:00.000Z',
        '2026-11-27T09:00:00.000Z  approve wave 1 by alice@example.com on stable@sha256:aa',
        '',
      ].join('\n'),
    );
  });

  it('says when a rollout window pauses it', () => {
    expect(renderRollout({ ...view, windowClosed: 'inside the deny window deny "0 22 * * *" for 10h (UTC)' }).split('\n')[1]).toBe('paused: inside the deny window deny "0 22 * * *" for 10h (UTC); drift correction goes on');
  });

  it('says which wave its own window pauses', () => {
    const waves = [view.waves[0], { ...view.waves[1], windowClosed: 'outside every allow window (allow "0 9 * * 1-5" for 8h (UTC))' }];
    expect(renderRollout({ ...view, waves }).split('\n')[4]).toBe('wave 1 paused: outside every allow window (allow "0 9 * * 1-5" for 8h (UTC))');
  });

  it('says when the revision was rolled back', () => {
    expect(renderRollout({ ...view, rolledBack: { revision: 'stable@sha256:aa', wave: 0, by: 'flotilla', at: '2026-11-27T11:00:00.000Z' } }).split('\n')[1]).toBe(
      'ROLLED BACK from wave 0 by flotilla at 2026-11-27T11:00:00.000Z; a new revision or `flotilla project rollout retry` continues',
    );
  });

  it('says when the rollout is on hold, and when there are no waves', () => {
    expect(renderRollout({ ...view, onHold: true }).split('\n')[0]).toBe('project/shop: revision stable@sha256:aa — ON HOLD until `flotilla project rollout retry`');
    expect(renderRollout({ ...view, waves: [], actions: [] })).toBe('project/shop: revision stable@sha256:aa\nno rollout waves: every cluster moves at once\n');
  });
});
