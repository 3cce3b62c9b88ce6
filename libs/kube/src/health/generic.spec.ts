import { genericHealth, readyConditionHealth } from './generic';
import type { KubeObject } from '../types';

const o = (metadata: object, status?: object): KubeObject => ({ apiVersion: 'x/v1', kind: 'Thing', metadata: { name: 't', ...metadata }, status });

describe('generic kstatus checks', () => {
  it('Terminating, stale generation, Reconciling and Stalled', () => {
    expect(genericHealth(o({ deletionTimestamp: 't' }))?.status).toBe('Terminating');
    expect(genericHealth(o({ generation: 2 }, { observedGeneration: 1 }))?.message).toBe('Thing generation is 2, but latest observed generation is 1');
    expect(genericHealth(o({}, { conditions: [{ type: 'Reconciling', status: 'True', message: 'busy' }] }))).toEqual({ status: 'InProgress', message: 'busy' });
    expect(genericHealth(o({}, { conditions: [{ type: 'Stalled', status: 'True', reason: 'Broken' }] }))).toEqual({ status: 'Failed', message: 'Broken' });
    expect(genericHealth(o({ generation: 1 }, { observedGeneration: 1 }))).toBeUndefined();
  });

  it('Ready condition decides, absent means Current', () => {
    expect(readyConditionHealth(o({})).status).toBe('Current');
    expect(readyConditionHealth(o({}, { conditions: [{ type: 'Ready', status: 'True' }] })).status).toBe('Current');
    expect(readyConditionHealth(o({}, { conditions: [{ type: 'Ready', status: 'Unknown', reason: 'Pending' }] }))).toEqual({ status: 'InProgress', message: 'Pending' });
  });
});
