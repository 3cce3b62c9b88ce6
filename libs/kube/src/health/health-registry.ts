import { parseApiVersion } from '../object-id';
import type { HealthResult, KubeObject } from '../types';
import { alwaysCurrent } from './always-current';
import { crdHealth } from './crd';
import { daemonSetHealth } from './daemonset';
import { deploymentHealth } from './deployment';
import { genericHealth, readyConditionHealth } from './generic';
import { jobHealth } from './job';
import { podHealth } from './pod';
import { pvcHealth } from './pvc';
import { replicaSetHealth } from './replicaset';
import { serviceHealth } from './service';
import { statefulSetHealth } from './statefulset';

/** One pure health function for one group/kind. */
export type HealthFn = (obj: KubeObject) => HealthResult;

/**
 * Module health checks (`timoni.healthChecks`), implemented by libs/timoni over CUE.
 * Returns undefined when no check targets the object's group/kind (exact kind beats group-wide);
 * otherwise the first true of inProgress, failed, current — InProgress when none is true.
 */
export interface HealthCheckEvaluator {
  evaluate(obj: KubeObject): Promise<HealthResult | undefined>;
}

const key = (group: string, kind: string) => `${group}/${kind}`;

/** Health functions keyed by group/kind. Built per use (no global mutable registry). */
export class HealthRegistry {
  private readonly fns = new Map<string, HealthFn>();

  /** Adds or replaces the check of one kind: the override hook for custom resources. */
  register(group: string, kind: string, fn: HealthFn): this {
    this.fns.set(key(group, kind), fn);
    return this;
  }

  lookup(group: string, kind: string): HealthFn | undefined {
    return this.fns.get(key(group, kind));
  }

  /**
   * kstatus order: deletion/generation/Reconciling/Stalled first, then the kind's function,
   * else the `Ready` condition, else Current (unknown kinds get no specific check).
   */
  compute(obj: KubeObject): HealthResult {
    const generic = genericHealth(obj);
    if (generic) return generic;
    const fn = this.lookup(parseApiVersion(obj.apiVersion).group, obj.kind);
    return fn ? fn(obj) : readyConditionHealth(obj);
  }

  /** As `compute`, but module CUE checks (when given) take precedence, after deletion. */
  async computeWithChecks(obj: KubeObject, evaluator?: HealthCheckEvaluator): Promise<HealthResult> {
    if (obj.metadata.deletionTimestamp) return { status: 'Terminating', message: 'Resource scheduled for deletion' };
    if (evaluator) {
      const custom = await evaluator.evaluate(obj);
      if (custom) return custom;
    }
    return this.compute(obj);
  }
}

/** The built-in rules: kstatus kinds plus Timoni's Job rule. */
export function defaultHealthRegistry(): HealthRegistry {
  return new HealthRegistry()
    .register('apps', 'Deployment', deploymentHealth)
    .register('apps', 'StatefulSet', statefulSetHealth)
    .register('apps', 'DaemonSet', daemonSetHealth)
    .register('apps', 'ReplicaSet', replicaSetHealth)
    .register('', 'Pod', podHealth)
    .register('', 'PersistentVolumeClaim', pvcHealth)
    .register('', 'Service', serviceHealth)
    .register('', 'Secret', alwaysCurrent)
    .register('', 'ConfigMap', alwaysCurrent)
    .register('batch', 'CronJob', alwaysCurrent)
    .register('batch', 'Job', jobHealth)
    .register('policy', 'PodDisruptionBudget', alwaysCurrent)
    .register('apiextensions.k8s.io', 'CustomResourceDefinition', crdHealth);
}
