// Kubernetes Events about a Project: one per instance apply, prune or
// deletion (the RFC's contents: objects, module version, duration, error)
// and one per run result, all on the Project so `kubectl describe project`
// and `kubectl get events --field-selector involvedObject.kind=Project` show them.
import { randomBytes } from 'node:crypto';
import { EVENT_MESSAGE_LIMIT, instanceEventText, type ReportInstance } from '@flotilla/engine';
import type { KubeObject } from '@flotilla/kube';
import type { ProjectResource } from '../project/project-resource';

export const AGENT_EVENT_SOURCE = 'flotilla-agent';

export interface EventText {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

function cut(s: string): string {
  return s.length <= EVENT_MESSAGE_LIMIT ? s : `${s.slice(0, EVENT_MESSAGE_LIMIT - 3)}...`;
}

/** A core/v1 Event on the Project; `annotations` name the instance or revision for tools that filter. */
export function projectEvent(project: ProjectResource, text: EventText, now: Date, reportingInstance: string, annotations: Record<string, string> = {}): KubeObject {
  const at = now.toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      // unique per event, as client-go's recorder names them: <object>.<hex>
      name: `${project.metadata.name}.${now.getTime().toString(16)}${randomBytes(3).toString('hex')}`,
      namespace: project.metadata.namespace,
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    },
    involvedObject: {
      apiVersion: project.apiVersion,
      kind: project.kind,
      namespace: project.metadata.namespace,
      name: project.metadata.name,
      uid: project.metadata.uid,
      resourceVersion: project.metadata.resourceVersion,
    },
    reason: text.reason,
    message: cut(text.message),
    type: text.type,
    source: { component: AGENT_EVENT_SOURCE },
    reportingComponent: AGENT_EVENT_SOURCE,
    reportingInstance,
    firstTimestamp: at,
    lastTimestamp: at,
    eventTime: null,
    count: 1,
  };
}

/** The instance event of the RFC, on the Project. */
export function instanceEvent(project: ProjectResource, instance: ReportInstance, revision: string | undefined, now: Date, reportingInstance: string): KubeObject {
  return projectEvent(project, instanceEventText(instance), now, reportingInstance, {
    'instance.timoni.sh/name': instance.name,
    'instance.timoni.sh/namespace': instance.namespace,
    'project.timoni.sh/component': instance.component,
    ...(revision ? { 'project.timoni.sh/revision': revision } : {}),
  });
}
