import { CueEngine } from '@flotilla/cue';
import { CueHealthCheckEvaluator, matchHealthCheck } from './health-check';
import { buildModule } from './module-build';
import { localModule } from './test-support';
import type { InstanceBuild, KubeObject } from './types';

const widget = (phase?: string): KubeObject => ({
  apiVersion: 'widgets.flotilla.test/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'apps' },
  ...(phase ? { status: { phase } } : {}),
});

const cache = (generation: number, observed: number, conditions: Array<{ type: string; status: string }>): KubeObject => ({
  apiVersion: 'cache.flotilla.test/v2',
  kind: 'Redis',
  metadata: { name: 'r', namespace: 'apps', generation },
  status: { observedGeneration: observed, conditions },
});

describe('module health checks (§5.6)', () => {
  let cue: CueEngine;
  let build: InstanceBuild;
  let evaluator: CueHealthCheckEvaluator;
  beforeAll(async () => {
    cue = await CueEngine.start({ poolSize: 1 });
    build = await buildModule(cue, { instance: 'shop', namespace: 'apps', module: await localModule(cue, 'app'), values: [] });
    evaluator = new CueHealthCheckEvaluator(cue, build);
  });
  afterAll(() => cue.close());

  it('matches exact kinds before group-wide checks and nothing else', () => {
    const checks = [
      { name: 'all', group: 'x.test' },
      { name: 'one', group: 'x.test', kind: 'One' },
    ];
    expect(matchHealthCheck(checks, { apiVersion: 'x.test/v1', kind: 'One' })?.name).toBe('one');
    expect(matchHealthCheck(checks, { apiVersion: 'x.test/v1', kind: 'Two' })?.name).toBe('all');
    expect(matchHealthCheck(checks, { apiVersion: 'v1', kind: 'One' })).toBeUndefined();
  });

  it('evaluates a custom check against the live object', async () => {
    expect((await evaluator.evaluate(widget('Ready')))?.status).toBe('Current');
    expect((await evaluator.evaluate(widget('Error')))?.status).toBe('Failed');
    expect((await evaluator.evaluate(widget('Pending')))?.status).toBe('InProgress');
  });

  it('counts incomplete expressions as false', async () => {
    expect((await evaluator.evaluate(widget()))?.status).toBe('InProgress');
  });

  it('answers repeated polls of an unchanged object from its cache', async () => {
    const e = new CueHealthCheckEvaluator(cue, build);
    for (let i = 0; i < 3; i++) expect((await e.evaluate(widget('Ready')))?.status).toBe('Current');
    expect(e.stats()).toMatchObject({ misses: 1, hits: 2 });
  });

  it('uses the condition check with generation awareness', async () => {
    expect((await evaluator.evaluate(cache(2, 2, [{ type: 'Ready', status: 'True' }])))?.status).toBe('Current');
    expect((await evaluator.evaluate(cache(3, 2, [{ type: 'Ready', status: 'True' }])))?.status).toBe('InProgress');
    expect((await evaluator.evaluate(cache(2, 2, [{ type: 'Stalled', status: 'True' }])))?.status).toBe('Failed');
    expect((await evaluator.evaluate(cache(2, 2, [{ type: 'Ready', status: 'False' }])))?.status).toBe('InProgress');
  });

  it('ignores stale conditions and objects without generations', async () => {
    const stale = cache(3, 3, [{ type: 'Ready', status: 'True', observedGeneration: 2 } as { type: string; status: string }]);
    expect((await evaluator.evaluate(stale))?.status).toBe('InProgress');
    const fresh = cache(3, 3, [{ type: 'Ready', status: 'True', observedGeneration: 3 } as { type: string; status: string }]);
    expect((await evaluator.evaluate(fresh))?.status).toBe('Current');
    const bare: KubeObject = { apiVersion: 'cache.flotilla.test/v1', kind: 'Memcached', metadata: { name: 'm' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } };
    expect((await evaluator.evaluate(bare))?.status).toBe('Current');
    const noStatus: KubeObject = { apiVersion: 'cache.flotilla.test/v1', kind: 'Memcached', metadata: { name: 'm', generation: 1 } };
    expect((await evaluator.evaluate(noStatus))?.status).toBe('InProgress');
  });

  it('takes conditionType and failedConditionType as inputs', async () => {
    const dup = 'package main\n\ntimoni: healthChecks: "bitnami.test/SealedSecret": #HealthCheckForCondition & {group: "bitnami.test", conditionType: "Synced", failedConditionType: "Broken"}\n';
    const module = await localModule(cue, 'app');
    const b = await buildModule(cue, { instance: 'shop', namespace: 'apps', module: { ...module, tree: { ...module.tree, 'sealed.cue': dup } }, values: [] });
    expect(b.healthChecks.map((h) => h.name)).toContain('bitnami.test/SealedSecret');
    const e = new CueHealthCheckEvaluator(cue, b);
    const obj = (type: string): KubeObject => ({ apiVersion: 'bitnami.test/v1', kind: 'SealedSecret', metadata: { name: 's' }, status: { conditions: [{ type, status: 'True' }] } });
    expect((await e.evaluate(obj('Synced')))?.status).toBe('Current');
    expect((await e.evaluate(obj('Ready')))?.status).toBe('InProgress');
    expect((await e.evaluate(obj('Broken')))?.status).toBe('Failed');
  });

  it('leaves objects no check targets to the built-in rules', async () => {
    expect(await evaluator.evaluate({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } })).toBeUndefined();
  });

  it('reports deleting objects as Terminating', async () => {
    const obj = widget('Ready');
    obj.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    expect((await evaluator.evaluate(obj))?.status).toBe('Terminating');
  });
});
