import { podHealth } from './pod';

const pod = (status: object) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, status });

describe('podHealth', () => {
  it('maps phase and readiness', () => {
    expect(podHealth(pod({ phase: 'Succeeded' })).status).toBe('Current');
    expect(podHealth(pod({ phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] })).status).toBe('Current');
    expect(podHealth(pod({ phase: 'Running' })).status).toBe('InProgress');
    expect(podHealth(pod({ phase: 'Failed' })).status).toBe('Failed');
    expect(podHealth(pod({})).message).toBe('Pod has not been scheduled');
  });
});
