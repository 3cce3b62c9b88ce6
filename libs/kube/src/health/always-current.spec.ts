import { alwaysCurrent } from './always-current';

describe('alwaysCurrent', () => {
  it('is Current for any object that exists', () => {
    expect(alwaysCurrent({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } })).toEqual({ status: 'Current', message: 'Secret exists' });
  });
});
