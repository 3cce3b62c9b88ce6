import { changeSetEntry, countActions, formatChangeSet } from './changeset';

describe('change sets', () => {
  const ref = { group: 'apps', version: 'v1', kind: 'Deployment', namespace: 'apps', name: 'web' };

  it('carries subject and action as data', () => {
    expect(changeSetEntry(ref, 'configured')).toEqual({ ref, subject: 'Deployment/apps/web', action: 'configured' });
  });

  it('counts and formats', () => {
    const cs = { entries: [changeSetEntry(ref, 'created'), changeSetEntry(ref, 'skipped', 'prune disabled'), changeSetEntry(ref, 'created')] };
    expect(countActions(cs)).toEqual({ created: 2, configured: 0, unchanged: 0, deleted: 0, skipped: 1 });
    expect(formatChangeSet(cs)[1]).toBe('Deployment/apps/web skipped (prune disabled)');
  });
});
