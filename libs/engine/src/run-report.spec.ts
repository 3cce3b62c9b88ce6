import { ApplyError, KubeApiError } from '@flotilla/kube';
import { DependencyNotReadyError, InstanceApplyError, InstanceBuildError, PruneError, ResolveError } from './errors';
import { buildRunReport, nextRunAt, reportError, RUN_REPORT_VERSION } from './run-report';
import type { ComponentResult, InstanceResult, RunResult } from './types';

const started = new Date('2026-11-22T04:00:00.000Z');
const finished = new Date('2026-11-22T04:00:02.500Z');
const backoff = { initialMs: 1000, factor: 2, maxMs: 60_000, jitter: 0 };
const ref = (kind: string, name: string) => ({ group: '', version: 'v1', kind, namespace: 'apps', name });

function instance(name: string, error?: InstanceResult['error']): InstanceResult {
  return {
    name,
    namespace: 'apps',
    component: 'app',
    bundle: 'app',
    module: { name: 'timoni.sh/web', repository: 'oci://127.0.0.1:5000/web', version: '1.2.0', digest: 'sha256:aa' },
    changes: [
      { ref: ref('ConfigMap', `${name}-config`), subject: `ConfigMap/apps/${name}-config`, action: 'created' },
      { ref: ref('Service', name), subject: `Service/apps/${name}`, action: 'unchanged' },
    ],
    counts: { created: 1, configured: 0, unchanged: 1, deleted: 0, skipped: 0 },
    ready: !error,
    durationMs: 12,
    ...(error ? { error } : {}),
  };
}

function result(partial: Partial<RunResult> = {}): RunResult {
  const app: ComponentResult = { name: 'app', status: 'Succeeded', bundle: 'app', instanceNames: [{ name: 'web', namespace: 'apps' }], instances: [instance('web')], startedAt: started, durationMs: 40 };
  return {
    project: { name: 'shop', namespace: 'shop' },
    cluster: { name: 'c1', group: 'staging' },
    source: 'oci://127.0.0.1:5000/shop',
    tag: 'latest',
    digest: 'sha256:abc',
    revision: 'latest@sha256:abc',
    ok: true,
    startedAt: started,
    finishedAt: finished,
    durationMs: 2500,
    timings: { resolveMs: 0, fetchMs: 3, loadMs: 4, componentsMs: 40, pruneMs: 5 },
    components: [app],
    pruned: [{ name: 'old', namespace: 'legacy', component: 'app', changes: [{ ref: ref('ConfigMap', 'old'), subject: 'ConfigMap/legacy/old', action: 'deleted' }], counts: { created: 0, configured: 0, unchanged: 0, deleted: 1, skipped: 0 }, durationMs: 7 }],
    namespaces: ['apps'],
    warnings: [],
    ...partial,
  };
}

describe('buildRunReport', () => {
  it('an apply that left objects unhealthy: the instance is not ready, names them, and the Target looks again within 30 s', () => {
    const notReady = ['Deployment/apps/web InProgress: Deployment does not have minimum availability'];
    const web = { ...instance('web'), ready: false, notReady };
    const report = buildRunReport(result({ components: [{ name: 'app', status: 'Succeeded', instances: [web], durationMs: 3 }] }), { attempt: 0, intervalMs: 600_000, backoff });
    expect(report.components[0].instances[0]).toMatchObject({ ready: false, notReady });
    expect(report.conditions.find((c) => c.type === 'Healthy')).toMatchObject({ status: 'False', message: `1 object(s) not healthy yet: ${notReady[0]}` });
    expect(report.decision).toEqual({ action: 'done', attempt: 0, afterMs: 30_000 });
    // the hub's or agent's own setting, when given; never past the interval
    const app = { components: [{ name: 'app', status: 'Succeeded' as const, instances: [web], durationMs: 3 }] };
    expect(buildRunReport(result(app), { attempt: 0, intervalMs: 600_000, backoff, healthRecheckMs: 5_000 }).decision.afterMs).toBe(5_000);
    expect(buildRunReport(result(app), { attempt: 0, intervalMs: 4_000, backoff, healthRecheckMs: 5_000 }).decision.afterMs).toBe(4_000);
  });

  it('is plain data that survives JSON unchanged', () => {
    const failure = new InstanceApplyError('app', 'web', { cause: new ApplyError('Deployment/apps/web', { cause: new Error('admission webhook denied') }) });
    const failed = result({ ok: false, error: failure, components: [{ name: 'app', status: 'Failed', instances: [instance('web', failure)], durationMs: 3, error: failure }] });
    for (const r of [result(), failed]) {
      const report = buildRunReport(r, { attempt: 0, intervalMs: 600_000, backoff });
      expect(JSON.parse(JSON.stringify(report))).toStrictEqual(report);
    }
  });

  it('a success: Ready, counts, objects, removed instances, and the interval as the next run', () => {
    const report = buildRunReport(result(), { attempt: 2, intervalMs: 600_000, backoff });
    expect(report).toMatchObject({
      version: RUN_REPORT_VERSION,
      kind: 'reconcile',
      ok: true,
      revision: 'latest@sha256:abc',
      startedAt: started.toISOString(),
      finishedAt: finished.toISOString(),
      counts: { created: 1, configured: 0, unchanged: 1, deleted: 1, skipped: 0 },
      namespaces: ['apps'],
      decision: { action: 'done', attempt: 0, afterMs: 600_000 },
      errors: [],
    });
    expect(report.conditions.map((c) => `${c.type}=${c.status}:${c.reason}`)).toEqual(['Ready=True:ReconciliationSucceeded', 'Healthy=True:HealthCheckSucceeded']);
    expect(report.components[0]).toMatchObject({ name: 'app', status: 'Succeeded', declared: [{ name: 'web', namespace: 'apps' }], startedAt: started.toISOString() });
    expect(report.components[0].instances[0]).toMatchObject({ action: 'applied', objects: ['ConfigMap/apps/web-config', 'Service/apps/web'], module: { version: '1.2.0' } });
    expect(report.removed).toEqual([
      { name: 'old', namespace: 'legacy', component: 'app', action: 'pruned', ready: true, durationMs: 7, counts: { created: 0, configured: 0, unchanged: 0, deleted: 1, skipped: 0 }, objects: ['ConfigMap/legacy/old'] },
    ]);
    expect(nextRunAt(report).toISOString()).toBe('2026-11-22T04:10:02.500Z');
  });

  it('a retryable failure backs off from the attempt count and says when it retries', () => {
    const err = new ResolveError('127.0.0.1:5000/shop:latest', { cause: new Error('connect ECONNREFUSED') });
    const report = buildRunReport(result({ ok: false, error: err, components: [], pruned: [], digest: undefined, revision: undefined }), { attempt: 2, intervalMs: 600_000, backoff });
    expect(report.decision).toEqual({ action: 'retry', attempt: 3, afterMs: 4000 });
    expect(report.errors).toEqual([{ reason: 'ArtifactResolveFailed', step: 'resolve', message: err.message, retryable: true }]);
    const reconciling = report.conditions.find((c) => c.type === 'Reconciling');
    expect(reconciling).toMatchObject({ status: 'True', reason: 'ProgressingWithRetry', message: 'attempt 3 failed; retrying at 2026-11-22T04:00:06.500Z' });
    expect(report).not.toHaveProperty('revision');
  });

  it('a broken revision stalls, still retried no later than the interval; errors name component, instance and object', () => {
    const build = new InstanceBuildError('app', 'web', false, { cause: new Error('values.cue:3:5: conflicting values') });
    const skipped = new DependencyNotReadyError('api', ['app']);
    const r = result({
      ok: false,
      error: build,
      components: [
        { name: 'app', status: 'Failed', instances: [instance('web', build)], durationMs: 3, error: build },
        { name: 'api', status: 'Skipped', instances: [], durationMs: 0, error: skipped },
      ],
      pruned: [],
    });
    const report = buildRunReport(r, { attempt: 9, intervalMs: 30_000, backoff });
    expect(report.decision).toEqual({ action: 'stall', attempt: 10, afterMs: 30_000 });
    expect(report.conditions.map((c) => `${c.type}=${c.status}:${c.reason}`)).toEqual(['Ready=False:BuildFailed', 'Stalled=True:BuildFailed']);
    expect(report.errors).toEqual([{ reason: 'BuildFailed', step: 'build', message: build.message, retryable: false, component: 'app', instance: 'web' }]);
    expect(report.components[1].error).toMatchObject({ reason: 'DependencyNotReady', component: 'api' });
  });

  it('finds the Kubernetes object in the cause chain', () => {
    const api = new KubeApiError('DELETE', '/api/v1/namespaces/apps/configmaps/web', 422, undefined, 'ConfigMap/apps/web');
    expect(reportError(new PruneError('apps/web', { cause: api }))).toMatchObject({ reason: 'PruneFailed', object: 'ConfigMap/apps/web' });
  });

  it('a deletion reports its instances as deleted', () => {
    const report = buildRunReport(result({ components: [] }), { attempt: 0, intervalMs: 60_000 }, 'delete');
    expect(report.kind).toBe('delete');
    expect(report.removed.map((i) => i.action)).toEqual(['deleted']);
  });
});
