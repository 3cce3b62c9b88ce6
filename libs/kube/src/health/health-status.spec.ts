import { HEALTH_ORDER, worstStatus } from './health-status';

describe('health status order', () => {
  it('ranks Failed worst and Current best', () => {
    expect(HEALTH_ORDER[0]).toBe('Failed');
    expect(HEALTH_ORDER.at(-1)).toBe('Current');
    expect(worstStatus(['Current', 'Terminating', 'NotFound'])).toBe('NotFound');
  });
});
