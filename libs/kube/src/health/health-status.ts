import type { HealthResult, HealthStatus } from '../types';

/** Ranks statuses from worst to best, to aggregate many objects into one. */
export const HEALTH_ORDER: readonly HealthStatus[] = ['Failed', 'NotFound', 'Unknown', 'Terminating', 'InProgress', 'Current'];

export function worstStatus(statuses: Iterable<HealthStatus>): HealthStatus {
  let worst: HealthStatus = 'Current';
  for (const s of statuses) if (HEALTH_ORDER.indexOf(s) < HEALTH_ORDER.indexOf(worst)) worst = s;
  return worst;
}

export const current = (message = 'Resource is current'): HealthResult => ({ status: 'Current', message });
export const inProgress = (message: string): HealthResult => ({ status: 'InProgress', message });
export const failed = (message: string): HealthResult => ({ status: 'Failed', message });
