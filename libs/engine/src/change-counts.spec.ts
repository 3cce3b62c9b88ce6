import type { ChangeSetEntry } from '@flotilla/kube';
import { addCounts, countChanges, summarizeInstances } from './change-counts';
import { InstanceApplyError } from './errors';
import type { RunResult } from './types';

const entry = (name: string, action: ChangeSetEntry['action']): ChangeSetEntry => ({
  ref: { group: '', version: 'v1', kind: 'ConfigMap', namespace: 'apps', name },
  subject: `ConfigMap/apps/${name}`,
  action,
});

describe('change counts', () => {
  it('counts each action', () => {
    expect(countChanges([entry('a', 'created'), entry('b', 'created'), entry('c', 'unchanged'), entry('d', 'deleted'), entry('e', 'configured'), entry('f', 'skipped')])).toEqual({
      created: 2, configured: 1, unchanged: 1, deleted: 1, skipped: 1,
    });
  });

  it('adds', () => {
    const one = countChanges([entry('a', 'created')]);
    expect(addCounts(one, one)).toMatchObject({ created: 2, deleted: 0 });
  });

  it('summarizes applied and pruned instances with errors as text', () => {
    const counts = countChanges([entry('a', 'created')]);
    const result = {
      components: [{
        name: 'front', status: 'Failed', durationMs: 1,
        instances: [{ name: 'web', namespace: 'apps', component: 'front', bundle: 'b', changes: [], counts, ready: false, durationMs: 1, module: { name: 'm', repository: 'oci://r/m', version: '1.0.0', digest: 'sha256:1' }, error: new InstanceApplyError('front', 'web', { cause: new Error('denied') }) }],
      }],
      pruned: [{ name: 'old', namespace: 'apps', component: 'gone', changes: [], counts: countChanges([entry('x', 'deleted')]) }],
    } as unknown as RunResult;
    expect(summarizeInstances(result)).toEqual([
      { name: 'web', namespace: 'apps', component: 'front', action: 'applied', moduleVersion: '1.0.0', ...counts, error: 'component front, instance web: apply: denied' },
      { name: 'old', namespace: 'apps', component: 'gone', action: 'pruned', created: 0, configured: 0, unchanged: 0, deleted: 1, skipped: 0 },
    ]);
  });
});
