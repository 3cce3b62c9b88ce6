import type { HealthResult, KubeObject } from '../types';
import { current, failed, inProgress } from './health-status';
import { conditions } from './object-fields';

/** CustomResourceDefinition: Established → Current, NamesAccepted=False → Failed. */
export function crdHealth(obj: KubeObject): HealthResult {
  for (const c of conditions(obj)) {
    if (c.type === 'NamesAccepted' && c.status === 'False') return failed(`CRD names not accepted: ${c.message ?? ''}`);
    if (c.type === 'Established') {
      if (c.status === 'True') return current('CRD is established');
      return inProgress('CRD is not established');
    }
  }
  return inProgress('Install in progress');
}
