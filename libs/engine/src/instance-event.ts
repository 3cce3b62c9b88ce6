// The RFC's instance event: applied objects, module version, duration and
// error, as one text that the hub's history, the core/v1 Event on the
// instance's inventory Secret and (later) the agent all share.
import { randomBytes } from 'node:crypto';
import { stateSecretName, type KubeObject } from '@flotilla/kube';
import type { ReportInstance } from './run-report';

/** Event messages are cut here (client-go's recorder limit). */
export const EVENT_MESSAGE_LIMIT = 1024;
export const EVENT_SOURCE = 'flotilla';

export const INSTANCE_EVENT_REASONS = ['InstanceApplied', 'InstanceApplyFailed', 'InstancePruned', 'InstancePruneFailed', 'InstanceDeleted', 'InstanceDeleteFailed'] as const;
export type InstanceEventReason = (typeof INSTANCE_EVENT_REASONS)[number];

export interface InstanceEventText {
  reason: InstanceEventReason;
  type: 'Normal' | 'Warning';
  message: string;
}

const VERBS = { applied: 'Apply', pruned: 'Prune', deleted: 'Delete' } as const;
const DONE = { applied: 'Applied', pruned: 'Pruned', deleted: 'Deleted' } as const;

function truncate(s: string): string {
  return s.length <= EVENT_MESSAGE_LIMIT ? s : `${s.slice(0, EVENT_MESSAGE_LIMIT - 3)}...`;
}

/** What became of the instance: `applied in`, or the step that failed (`build failed after`), never `applied` for a failure. */
function outcome(i: ReportInstance): string {
  if (!i.error) return `${i.action} in`;
  const step = i.error.step === 'wait' ? 'health check' : i.error.step === 'timeout' ? 'component timeout' : i.error.step;
  return `${step} failed after`;
}

/** `instance ns/name (component c) module m@v applied in 42 ms: counts; objects: …; error: …` */
export function instanceEventText(i: ReportInstance): InstanceEventText {
  const module = i.module ? ` module ${i.module.name}@${i.module.version}` : '';
  const c = i.counts;
  const counts = `created ${c.created}, configured ${c.configured}, unchanged ${c.unchanged}, deleted ${c.deleted}`;
  const objects = i.objects.length ? `; objects: ${i.objects.join(', ')}` : '';
  const error = i.error ? `; error: ${i.error.message}` : '';
  return {
    reason: i.error ? `Instance${VERBS[i.action]}Failed` : `Instance${DONE[i.action]}`,
    type: i.error ? 'Warning' : 'Normal',
    message: truncate(`instance ${i.namespace}/${i.name} (component ${i.component})${module} ${outcome(i)} ${i.durationMs} ms: ${counts}${objects}${error}`),
  };
}

/** What a core/v1 Event about an instance names besides its text. */
export interface InstanceEventSubject {
  instance: { name: string; namespace: string; component?: string };
  project: { name: string; namespace: string };
  /** the cluster as the inventory names it (reportingInstance) */
  cluster: string;
  revision?: string;
}

/** A core/v1 Event about the instance's inventory Secret, to create in the target cluster. */
export function instanceKubeEvent(subject: InstanceEventSubject, text: Pick<InstanceEventText, 'type' | 'message'> & { reason: string }, now: Date): KubeObject {
  const { instance } = subject;
  const at = now.toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      // Unique per event, as the recorder names them: <object>.<hex>.
      name: `${stateSecretName(instance.name)}.${now.getTime().toString(16)}${randomBytes(2).toString('hex')}`,
      namespace: instance.namespace,
      annotations: {
        'project.flotilla.dev/name': subject.project.name,
        'project.flotilla.dev/namespace': subject.project.namespace,
        ...(instance.component ? { 'project.flotilla.dev/component': instance.component } : {}),
        ...(subject.revision ? { 'project.flotilla.dev/revision': subject.revision } : {}),
      },
    },
    involvedObject: { apiVersion: 'v1', kind: 'Secret', namespace: instance.namespace, name: stateSecretName(instance.name) },
    reason: text.reason,
    message: truncate(text.message),
    type: text.type,
    source: { component: EVENT_SOURCE },
    reportingComponent: EVENT_SOURCE,
    reportingInstance: subject.cluster,
    firstTimestamp: at,
    lastTimestamp: at,
    count: 1,
  };
}
