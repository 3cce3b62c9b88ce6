import type { Condition, ReportInstance } from '@flotilla/engine';
import { RunProgress } from './run-progress';

const now = new Date('2026-11-25T03:00:00Z');
const instance = (name: string, component: string): ReportInstance => ({
  name, namespace: 'apps', component, action: 'applied', ready: true, durationMs: 5, counts: { created: 1, configured: 0, unchanged: 0, deleted: 0, skipped: 0 }, objects: [`ConfigMap/apps/${name}`],
});
const failed: Condition = { type: 'Ready', status: 'False', reason: 'ComponentTimeout', message: 'component infra timed out', lastTransitionTime: '2026-11-25T02:00:00.000Z' };
const ready: Condition = { type: 'Ready', status: 'True', reason: 'ReconciliationSucceeded', message: 'Applied revision v1', lastTransitionTime: '2026-11-25T02:00:00.000Z' };

describe('RunProgress', () => {
  it('names what a waiting component waits for, and replaces an earlier failure with Unknown', () => {
    const p = new RunProgress('v2@sha256:abc');
    p.waiting('infra', { name: 'db', namespace: 'apps' }, ['ConfigMap/apps/db-config', 'Deployment/apps/db'], 59_400);
    const message = 'revision v2@sha256:abc: component infra waits for instance apps/db to be healthy (ConfigMap/apps/db-config, Deployment/apps/db); at most 60 s left';
    expect(p.conditions([failed], now).map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['Ready', 'Unknown', 'Progressing', message],
      ['Reconciling', 'True', 'Progressing', message],
    ]);
    expect(p.snapshot()).toEqual([{ name: 'infra', status: 'Running', durationMs: 0, declared: [], instances: [], waitingFor: ['ConfigMap/apps/db-config', 'Deployment/apps/db'] }]);
  });

  it('keeps a Ready that was True, and drops the wait once the instance is applied', () => {
    const p = new RunProgress('v2');
    p.waiting('infra', { name: 'db', namespace: 'apps' }, ['Deployment/apps/db'], 1000);
    p.applied(instance('db', 'infra'));
    p.applied(instance('web', 'app'));
    expect(p.conditions([ready], now)[0]).toBe(ready);
    const snapshot = p.snapshot();
    expect(snapshot.map((c) => [c.name, c.status, c.waitingFor, c.instances.map((i) => i.name)])).toEqual([
      ['infra', 'Running', undefined, ['db']],
      ['app', 'Running', undefined, ['web']],
    ]);
  });
});
