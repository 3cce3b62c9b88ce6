// Which instances belong to which Project and component: labels on the
// inventory (`timoni.<instance>`) Secrets, next to Timoni's own bundle label.
// Never change these once released: pruning finds instances by them.
import { APP_COMPONENT_LABEL, APP_CREATED_BY_LABEL, BUNDLE_NAME_LABEL, CREATED_BY, STATE_COMPONENT } from '@flotilla/kube';

export const PROJECT_NAME_LABEL = 'project.flotilla.dev/name';
export const PROJECT_NAMESPACE_LABEL = 'project.flotilla.dev/namespace';
export const PROJECT_COMPONENT_LABEL = 'project.flotilla.dev/component';
/**
 * Who applied the instance: the hub's cluster registration or the agent. Two
 * registrations of one API server (or two hubs on one cluster) each prune
 * only their own instances.
 */
export const PROJECT_OWNER_LABEL = 'project.flotilla.dev/owner';

/** Labels of an instance applied for a component of a Project. */
export function instanceLabels(project: { name: string; namespace: string }, component: string, bundle: string, owner?: string): Record<string, string> {
  return {
    [BUNDLE_NAME_LABEL]: bundle,
    [PROJECT_NAME_LABEL]: project.name,
    [PROJECT_NAMESPACE_LABEL]: project.namespace,
    [PROJECT_COMPONENT_LABEL]: component,
    ...(owner ? { [PROJECT_OWNER_LABEL]: owner } : {}),
  };
}

/** Label selector of every inventory Secret of a Project. */
export function projectSelector(project: { name: string; namespace: string }): string {
  return [
    `${APP_COMPONENT_LABEL}=${STATE_COMPONENT}`,
    `${APP_CREATED_BY_LABEL}=${CREATED_BY}`,
    `${PROJECT_NAME_LABEL}=${project.name}`,
    `${PROJECT_NAMESPACE_LABEL}=${project.namespace}`,
  ].join(',');
}
