import type { ChangeSetEntry } from '@flotilla/kube';
import { addCounts, countChanges } from './change-counts';

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
});
