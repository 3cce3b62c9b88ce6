import { instanceHistories, serviceChange } from './service-change';

const applied = (name: string, error?: string) => ({ name, namespace: 'apps', action: 'applied' as const, ...(error ? { error } : {}) });

describe('service changes from the run history', () => {
  // newest first: v3 failed on web, v2 applied both, db pruned before that, v1 first
  const history = instanceHistories([
    { revision: 'v3', instances: [applied('web', 'apply failed')] },
    { revision: 'v2', instances: [applied('web'), { name: 'db', namespace: 'apps', action: 'pruned' }] },
    { revision: 'v1', instances: [applied('web'), applied('db')] },
  ]);

  it('knows what each instance runs and ran, a failed apply changing nothing', () => {
    expect(history.get('apps/web')).toEqual({ current: 'v2', earlier: new Set(['v1']) });
    expect(history.get('apps/db')).toEqual({ current: null, earlier: new Set(['v1']) });
  });

  it('decides deployed, upgraded, rolled back, or nothing', () => {
    expect(serviceChange(history.get('apps/cache'), 'v2')).toBe('deployed');
    expect(serviceChange(history.get('apps/db'), 'v2')).toBe('deployed');
    expect(serviceChange(history.get('apps/web'), 'v3')).toBe('upgraded');
    expect(serviceChange(history.get('apps/web'), 'v1')).toBe('rolledback');
    expect(serviceChange(history.get('apps/web'), 'v2')).toBeNull();
  });
});
