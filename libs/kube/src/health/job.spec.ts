import { jobHealth } from './job';

const job = (spec: object, status: object) => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec, status });

describe('jobHealth (Timoni rule)', () => {
  it('suspended or complete is Current, failed is Failed, otherwise in progress', () => {
    expect(jobHealth(job({ suspend: true }, {})).message).toBe('Job is suspended');
    expect(jobHealth(job({}, { conditions: [{ type: 'Complete', status: 'True' }] })).status).toBe('Current');
    expect(jobHealth(job({}, { conditions: [{ type: 'Failed', status: 'True', reason: 'DeadlineExceeded' }] }))).toEqual({ status: 'Failed', message: 'Job failed: DeadlineExceeded' });
    expect(jobHealth(job({}, {})).message).toBe('Job not started');
    expect(jobHealth(job({}, { startTime: '2026-01-01T00:00:00Z', active: 1 })).message).toBe('Job in progress');
  });
});
