import { runStatus, reconcilingStatus, runErrors, type Condition } from './conditions';
import { BundleError, DependencyNotReadyError, InstanceApplyError, ProjectLoadError, PruneError, ResolveError } from './errors';
import type { ComponentResult, RunResult } from './types';

const now = new Date('2026-11-22T04:00:00Z');
const earlier = '2026-11-22T03:00:00.000Z';

function run(partial: Partial<RunResult>): RunResult {
  return {
    project: { name: 'p', namespace: 'ns' },
    cluster: { name: 'c1', group: 'staging' },
    source: 'oci://127.0.0.1:5000/p',
    tag: 'latest',
    revision: 'latest@sha256:abc',
    ok: true,
    startedAt: now,
    finishedAt: now,
    durationMs: 1,
    timings: { resolveMs: 0, fetchMs: 0, loadMs: 0, componentsMs: 0, pruneMs: 0 },
    components: [],
    pruned: [],
    namespaces: [],
    warnings: [],
    ...partial,
  };
}

const component = (name: string, status: ComponentResult['status'], error?: ComponentResult['error']): ComponentResult => ({ name, status, instances: [], durationMs: 1, error });

describe('runStatus', () => {
  it('a successful run is Ready with the revision', () => {
    const s = runStatus(run({ components: [component('a', 'Succeeded')] }), now);
    expect(s.decision).toBe('done');
    expect(s.conditions).toEqual([
      { type: 'Ready', status: 'True', reason: 'ReconciliationSucceeded', message: 'Applied revision latest@sha256:abc: 1 component(s), 0 instance(s)', lastTransitionTime: now.toISOString() },
      { type: 'Healthy', status: 'True', reason: 'HealthCheckSucceeded', message: 'every applied object is healthy', lastTransitionTime: now.toISOString() },
    ]);
  });

  it('a successful run whose objects are not healthy yet says so in Healthy and in the Ready message', () => {
    const web = { name: 'web', namespace: 'apps', component: 'a', bundle: 'a', changes: [], counts: { created: 0, configured: 0, unchanged: 0, deleted: 0, skipped: 0 }, ready: false, durationMs: 1 };
    const notReady = ['Deployment/apps/web InProgress: 0 of 2 replicas available'];
    const s = runStatus(run({ components: [{ ...component('a', 'Succeeded'), instances: [{ ...web, notReady }] }] }), now);
    expect(s.decision).toBe('done');
    expect(s.conditions.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['Ready', 'True', 'ReconciliationSucceeded', `Applied revision latest@sha256:abc: 1 component(s), 1 instance(s); 1 object(s) not healthy yet: ${notReady[0]}`],
      ['Healthy', 'False', 'Progressing', `1 object(s) not healthy yet: ${notReady[0]}`],
    ]);
  });

  it('an invalid project stalls until a new revision', () => {
    const err = new ProjectLoadError('project.cue', { cause: new Error('project.cue:3:5: field not allowed') });
    const s = runStatus(run({ ok: false, error: err }), now);
    expect(s.decision).toBe('stall');
    expect(s.reason).toBe('InvalidProject');
    expect(s.conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Ready', 'False', 'InvalidProject'],
      ['Stalled', 'True', 'InvalidProject'],
    ]);
    expect(s.message).toContain('project.cue:3:5');
  });

  it('a registry error retries with Reconciling ProgressingWithRetry', () => {
    const s = runStatus(run({ ok: false, error: new ResolveError('127.0.0.1:5000/p:latest', { cause: new Error('connect ECONNREFUSED') }) }), now);
    expect(s.decision).toBe('retry');
    expect(s.conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Ready', 'False', 'ArtifactResolveFailed'],
      ['Reconciling', 'True', 'ProgressingWithRetry'],
    ]);
  });

  it('retries when any failed component is retryable; names every failure; ignores skipped ones', () => {
    const bundle = new BundleError('a', { cause: new Error('bundle.cue:4: conflicting values') });
    const apply = new InstanceApplyError('b', 'web', { cause: new Error('403') });
    const s = runStatus(run({ ok: false, error: bundle, components: [component('a', 'Failed', bundle), component('b', 'Failed', apply), component('c', 'Skipped', new DependencyNotReadyError('c', ['a']))] }), now);
    expect(s.decision).toBe('retry');
    expect(s.reason).toBe('InvalidBundle');
    expect(s.message).toBe(`${bundle.message}; ${apply.message}`);
  });

  it('stalls when every failure is permanent', () => {
    const bundle = new BundleError('a', { cause: new Error('bad') });
    const s = runStatus(run({ ok: false, error: bundle, components: [component('a', 'Failed', bundle), component('b', 'Skipped', new DependencyNotReadyError('b', ['a']))] }), now);
    expect(s.decision).toBe('stall');
  });

  it('counts prune failures', () => {
    const pruned = [{ name: 'old', namespace: 'x', component: 'a', changes: [], counts: { created: 0, configured: 0, unchanged: 0, deleted: 0, skipped: 0 }, error: new PruneError('x/old', { cause: new Error('timeout') }) }];
    expect(runErrors(run({ ok: false, pruned })).map((e) => e.reason)).toEqual(['PruneFailed']);
    expect(runStatus(run({ ok: false, pruned }), now).decision).toBe('retry');
  });

  it('keeps the transition time of a condition whose status did not change', () => {
    const previous: Condition[] = [{ type: 'Ready', status: 'True', reason: 'ReconciliationSucceeded', message: 'old', lastTransitionTime: earlier }];
    expect(runStatus(run({}), now, previous).conditions[0].lastTransitionTime).toBe(earlier);
    const failed = runStatus(run({ ok: false, error: new ResolveError('r', { cause: new Error('x') }) }), now, previous);
    expect(failed.conditions[0].lastTransitionTime).toBe(now.toISOString());
  });
});

describe('reconcilingStatus', () => {
  it('keeps a known Ready and adds Reconciling Progressing', () => {
    const previous: Condition[] = [{ type: 'Ready', status: 'True', reason: 'ReconciliationSucceeded', message: 'old', lastTransitionTime: earlier }];
    const c = reconcilingStatus(now, previous, 'v2@sha256:def');
    expect(c[0]).toBe(previous[0]);
    expect(c[1]).toEqual({ type: 'Reconciling', status: 'True', reason: 'Progressing', message: 'Reconciling revision v2@sha256:def', lastTransitionTime: now.toISOString() });
  });

  it('starts with Ready Unknown', () => {
    expect(reconcilingStatus(now)[0]).toMatchObject({ type: 'Ready', status: 'Unknown' });
  });
});

