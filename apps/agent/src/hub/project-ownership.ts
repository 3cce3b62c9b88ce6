// Which Project resources are the hub's: only those the agent wrote for an
// assignment carry the hub's managed-by label. Any other Project of the same
// name belongs to a tenant of this cluster, and an assignment never replaces
// or deletes it.
import type { ProjectResource } from '../project/project-resource';
import { HUB_MANAGED_BY } from '../project/project-resource';

export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';

/** The selector of the Projects the agent wrote for the hub. */
export const HUB_MANAGED_SELECTOR = `${MANAGED_BY_LABEL}=${HUB_MANAGED_BY}`;

export function isHubManaged(p: Pick<ProjectResource, 'metadata'>): boolean {
  return p.metadata.labels?.[MANAGED_BY_LABEL] === HUB_MANAGED_BY;
}

/** An assignment names a Project the cluster holds but the hub did not make: it is left as it is. */
export class ForeignProjectError extends Error {
  constructor(
    readonly projectNamespace: string,
    readonly projectName: string,
    options?: { cause?: unknown },
  ) {
    super(
      `Project ${projectNamespace}/${projectName} already exists in the cluster and was not made by the hub (it lacks the label ${HUB_MANAGED_SELECTOR}): ` +
        'the agent neither replaces nor deletes it; give the hub\'s Project another name or namespace, or remove the cluster\'s own Project',
      options,
    );
    this.name = 'ForeignProjectError';
  }
}
