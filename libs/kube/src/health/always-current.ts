import type { HealthResult, KubeObject } from '../types';
import { current } from './health-status';

/** Kinds with nothing to wait for once they exist (Secret, ConfigMap, CronJob, PDB, …). */
export function alwaysCurrent(obj: KubeObject): HealthResult {
  return current(`${obj.kind} exists`);
}
