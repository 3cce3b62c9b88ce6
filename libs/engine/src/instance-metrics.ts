// The labels of the RFC's per-instance metrics (timoni_instance_info and
// timoni_instance_reconcile_duration_seconds), computed once for the hub and
// the agent so both export the same series for the same instance.
import type { ReportInstance } from './run-report';

export const INSTANCE_INFO_LABELS = [
  'instance_name',
  'instance_namespace',
  'ready',
  'module_name',
  'module_version',
  'project_name',
  'project_namespace',
  'project_component',
  'project_source',
  // sic: the Timoni controller RFC spells it so, and dashboards follow the RFC
  'project_revison',
] as const;

export type InstanceInfoLabels = Record<(typeof INSTANCE_INFO_LABELS)[number], string>;

export interface InstanceMetricsProject {
  name: string;
  namespace: string;
  /** `oci://host/repo` */
  source: string;
  /** `tag@sha256:…` */
  revision: string;
}

export function instanceInfoLabels(project: InstanceMetricsProject, instance: ReportInstance): InstanceInfoLabels {
  return {
    instance_name: instance.name,
    instance_namespace: instance.namespace,
    ready: String(instance.ready && !instance.error),
    module_name: instance.module?.name ?? '',
    module_version: instance.module?.version ?? '',
    project_name: project.name,
    project_namespace: project.namespace,
    project_component: instance.component,
    project_source: project.source,
    project_revison: project.revision,
  };
}
