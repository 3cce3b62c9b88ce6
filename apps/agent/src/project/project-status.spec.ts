import type { RunReport } from '@flotilla/engine';
import { APPLIED_REVISIONS_KEPT, statusAfterRun, statusInvalid, statusReconciling } from './project-status';

function report(overrides: Partial<RunReport> = {}): RunReport {
  return {
    version: 1,
    kind: 'reconcile',
    project: { name: 'shop', namespace: 'team-a' },
    cluster: { name: 'spoke', group: 'prod' },
    source: 'oci://reg/shop',
    tag: 'latest',
    digest: 'sha256:bb',
    revision: 'latest@sha256:bb',
    ok: true,
    startedAt: '2026-11-23T10:00:00.000Z',
    finishedAt: '2026-11-23T10:00:02.000Z',
    durationMs: 2000,
    timings: {} as RunReport['timings'],
    counts: { created: 1, configured: 0, unchanged: 0, deleted: 0, skipped: 0 } as RunReport['counts'],
    components: [
      {
        name: 'app',
        status: 'Succeeded',
        durationMs: 1500,
        declared: [{ name: 'web', namespace: 'team-a' }],
        instances: [
          {
            name: 'web',
            namespace: 'team-a',
            component: 'app',
            action: 'applied',
            module: { name: 'greeter', repository: 'oci://reg/greeter', version: '1.0.0', digest: 'sha256:mm' },
            ready: true,
            durationMs: 900,
            counts: { created: 1, configured: 0, unchanged: 0, deleted: 0 } as RunReport['counts'],
            objects: ['ConfigMap/team-a/web', 'Service/team-a/web'],
          },
        ],
      },
    ],
    removed: [],
    namespaces: ['team-a'],
    conditions: [{ type: 'Ready', status: 'True', reason: 'ReconciliationSucceeded', message: 'Applied revision latest@sha256:bb', lastTransitionTime: '2026-11-23T10:00:02.000Z' }],
    decision: { action: 'done', attempt: 0, afterMs: 600_000 },
    warnings: [],
    errors: [],
    ...overrides,
  };
}

describe('statusAfterRun', () => {
  it('writes what the engine reported: conditions with the generation, revisions, instances, next run', () => {
    const status = statusAfterRun(report(), 3, undefined, 'r1');
    expect(status).toEqual({
      observedGeneration: 3,
      conditions: [{ type: 'Ready', status: 'True', reason: 'ReconciliationSucceeded', message: 'Applied revision latest@sha256:bb', lastTransitionTime: '2026-11-23T10:00:02.000Z', observedGeneration: 3 }],
      lastAppliedRevision: 'latest@sha256:bb',
      lastAttemptedRevision: 'latest@sha256:bb',
      lastHandledReconcileAt: 'r1',
      components: [{ name: 'app', status: 'Succeeded', instances: [{ name: 'web', namespace: 'team-a', module: { name: 'greeter', version: '1.0.0', digest: 'sha256:mm' }, ready: true, objects: 2 }] }],
      namespaces: ['team-a'],
      nextReconcileAt: '2026-11-23T10:10:02.000Z',
      failures: 0,
    });
  });

  it('keeps the last applied revision and the known components when a run fails before building', () => {
    const before = statusAfterRun(report(), 1, undefined, undefined);
    const failed = report({
      ok: false,
      digest: 'sha256:cc',
      revision: 'latest@sha256:cc',
      components: [],
      conditions: [{ type: 'Ready', status: 'False', reason: 'BuildFailed', message: 'x'.repeat(5000), lastTransitionTime: 't' }],
      decision: { action: 'stall', attempt: 2, afterMs: 10_000 },
    });
    const status = statusAfterRun(failed, 1, before, undefined);
    expect(status.lastAppliedRevision).toBe('latest@sha256:bb');
    expect(status.lastAttemptedRevision).toBe('latest@sha256:cc');
    expect(status.components).toEqual(before.components);
    expect(status.failures).toBe(2);
    expect(status.nextReconcileAt).toBe('2026-11-23T10:00:12.000Z');
    expect(status.conditions![0].message).toHaveLength(4096);
  });
});

describe('status.appliedRevisions', () => {
  const run = (rev: string, previous: ReturnType<typeof statusAfterRun> | undefined, ok = true) => statusAfterRun(report({ ok, revision: rev, digest: rev.split('@')[1] }), 1, previous, undefined);

  it('keeps the revisions applied before the current one, newest first, each once, a few of them', () => {
    const a = run('latest@sha256:aa', undefined);
    expect(a.appliedRevisions).toBeUndefined();
    const b = run('latest@sha256:bb', a);
    expect(b.appliedRevisions).toEqual(['latest@sha256:aa']);
    const failed = run('latest@sha256:cc', b, false);
    expect(failed.appliedRevisions).toEqual(['latest@sha256:aa']);
    const back = run('latest@sha256:aa', failed);
    expect([back.lastAppliedRevision, back.appliedRevisions]).toEqual(['latest@sha256:aa', ['latest@sha256:bb']]);
    let s = back;
    for (let i = 0; i < 15; i++) s = run(`latest@sha256:${i.toString(16).padStart(2, '0')}`, s);
    expect(s.appliedRevisions).toHaveLength(APPLIED_REVISIONS_KEPT);
    expect(s.appliedRevisions![0]).toBe('latest@sha256:0d');
  });
});

describe('statusReconciling and statusInvalid', () => {
  it('marks a run in progress and keeps Ready as it was', () => {
    const before = statusAfterRun(report(), 1, undefined, undefined);
    const s = statusReconciling(before, 2, new Date('2026-11-23T11:00:00.000Z'), 'latest@sha256:dd');
    expect(s.conditions).toEqual([
      expect.objectContaining({ type: 'Ready', status: 'True', lastTransitionTime: '2026-11-23T10:00:02.000Z', observedGeneration: 2 }),
      expect.objectContaining({ type: 'Reconciling', status: 'True', reason: 'Progressing', message: 'Reconciling revision latest@sha256:dd' }),
    ]);
    expect(s.lastAppliedRevision).toBe('latest@sha256:bb');
  });

  it('stalls an invalid Project with every problem in the message', () => {
    const s = statusInvalid(undefined, 4, new Date('2026-11-23T11:00:00.000Z'), ['a is bad', 'b is bad']);
    expect(s.conditions).toEqual([
      { type: 'Ready', status: 'False', reason: 'InvalidProject', message: 'a is bad; b is bad', lastTransitionTime: '2026-11-23T11:00:00.000Z', observedGeneration: 4 },
      { type: 'Stalled', status: 'True', reason: 'InvalidProject', message: 'a is bad; b is bad', lastTransitionTime: '2026-11-23T11:00:00.000Z', observedGeneration: 4 },
    ]);
  });
});
