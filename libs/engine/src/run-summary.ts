// A run's components and instances as plain JSON for the Target status
// (`targets.components`): what the hub shows and the CLI prints.
import type { ComponentStatus, RunResult } from './types';

export interface ComponentSummary {
  name: string;
  status: ComponentStatus;
  bundle?: string;
  durationMs: number;
  /** reason and message of the failure (or of the skip) */
  reason?: string;
  message?: string;
  instances: Array<{
    name: string;
    namespace: string;
    ready: boolean;
    moduleName?: string;
    moduleVersion?: string;
    moduleDigest?: string;
    message?: string;
  }>;
}

export function summarizeComponents(result: RunResult): ComponentSummary[] {
  return result.components.map((c) => ({
    name: c.name,
    status: c.status,
    ...(c.bundle ? { bundle: c.bundle } : {}),
    durationMs: c.durationMs,
    ...(c.error ? { reason: c.error.reason, message: c.error.message } : {}),
    instances: c.instances.map((i) => ({
      name: i.name,
      namespace: i.namespace,
      ready: i.ready,
      ...(i.module ? { moduleName: i.module.name, moduleVersion: i.module.version, moduleDigest: i.module.digest } : {}),
      ...(i.error ? { message: i.error.message } : {}),
    })),
  }));
}
