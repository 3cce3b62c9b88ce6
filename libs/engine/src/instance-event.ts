// The RFC's instance event: applied objects, error, module version and
// duration, as text and as a core/v1 Event on the instance's inventory
// Secret (in push mode there is no Project object in the cluster to point at).
import { randomBytes } from 'node:crypto';
import { stateSecretName, type KubeObject } from '@flotilla/kube';
import type { InstanceAppliedEvent, InstancePrunedEvent } from './types';

/** Event messages are cut here (client-go's recorder limit). */
export const EVENT_MESSAGE_LIMIT = 1024;
export const EVENT_SOURCE = 'flotilla';

export type InstanceEventReason = 'InstanceApplied' | 'InstanceApplyFailed' | 'InstancePruned' | 'InstancePruneFailed';

export interface InstanceEventText {
  reason: InstanceEventReason;
  type: 'Normal' | 'Warning';
  message: string;
}

function truncate(s: string): string {
  return s.length <= EVENT_MESSAGE_LIMIT ? s : `${s.slice(0, EVENT_MESSAGE_LIMIT - 3)}...`;
}

/** `Kind/ns/name action` per object, then the module, revision, duration and any error. */
export function instanceEventText(event: InstanceAppliedEvent | InstancePrunedEvent): InstanceEventText {
  const i = event.instance;
  const pruned = !('ready' in i);
  const lines = i.changes.map((c) => `${c.subject} ${c.action}`);
  const mod = 'module' in i && i.module ? `module ${i.module.name}:${i.module.version}` : undefined;
  const parts = [mod, event.context.revision ? `revision ${event.context.revision}` : undefined, 'durationMs' in i ? `${i.durationMs}ms` : undefined].filter(Boolean);
  if (i.error) lines.unshift(`error: ${i.error.message}`);
  if (parts.length > 0) lines.push(parts.join(', '));
  const reason: InstanceEventReason = pruned ? (i.error ? 'InstancePruneFailed' : 'InstancePruned') : i.error ? 'InstanceApplyFailed' : 'InstanceApplied';
  return { reason, type: i.error ? 'Warning' : 'Normal', message: truncate(lines.join('\n')) };
}

/** A core/v1 Event about the instance, to create in the target cluster. */
export function instanceKubeEvent(event: InstanceAppliedEvent | InstancePrunedEvent, now: Date): KubeObject {
  const i = event.instance;
  const text = instanceEventText(event);
  const at = now.toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      // Unique per event, as the recorder names them: <object>.<hex>.
      name: `${stateSecretName(i.name)}.${now.getTime().toString(16)}${randomBytes(2).toString('hex')}`,
      namespace: i.namespace,
      annotations: {
        'project.flotilla.dev/name': event.context.project.name,
        'project.flotilla.dev/namespace': event.context.project.namespace,
        'project.flotilla.dev/component': i.component,
        ...(event.context.revision ? { 'project.flotilla.dev/revision': event.context.revision } : {}),
      },
    },
    involvedObject: { apiVersion: 'v1', kind: 'Secret', namespace: i.namespace, name: stateSecretName(i.name) },
    reason: text.reason,
    message: text.message,
    type: text.type,
    source: { component: EVENT_SOURCE },
    reportingComponent: EVENT_SOURCE,
    reportingInstance: event.context.cluster.name,
    firstTimestamp: at,
    lastTimestamp: at,
    count: 1,
  };
}
