import { apiStatusOf, MAX_STATUS_MESSAGE } from './api-status';

describe('apiStatusOf', () => {
  it('keeps the fields of a Kubernetes Status, bounded', () => {
    const s = apiStatusOf({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Invalid', code: 422, message: 'm'.repeat(5000), details: { name: 'web', kind: 'Deployment', causes: Array.from({ length: 50 }, () => ({ field: 'spec.x', message: 'bad\nvalue' })) } });
    expect(s.reason).toBe('Invalid');
    expect(s.code).toBe(422);
    expect(s.message).toBe(`${'m'.repeat(MAX_STATUS_MESSAGE)}…`);
    expect(s.details?.causes).toHaveLength(10);
    expect(s.details?.causes?.[0]).toEqual({ field: 'spec.x', message: 'bad value', reason: undefined });
  });

  it('describes anything else without echoing it', () => {
    for (const body of [undefined, 'text', ['a'], { message: 'secret' }, { kind: 'Pod', message: 'secret' }]) {
      expect(apiStatusOf(body)).toEqual({ message: 'the answer is not a Kubernetes Status (body not shown)' });
    }
  });
});
