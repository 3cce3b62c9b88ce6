// Where the agent keeps the CDEvents it has not delivered yet: one ConfigMap
// per Project in the agent's own namespace, so a restart, a crash or a new
// leader picks them up. A ConfigMap, not a Secret: an entry holds the event
// and where it goes, never a credential (the sink header's value is read
// from the Project's Secret at each attempt).
import { createHash } from 'node:crypto';
import type { CDEvent } from '@flotilla/cdevents';
import type { KubeObject, ObjectClient } from '@flotilla/kube';

export const OUTBOX_LABEL = 'cdevents.flotilla.dev/outbox';
export const OUTBOX_PROJECT_ANNOTATION = 'cdevents.flotilla.dev/project';
const FIELD_MANAGER = 'flotilla-agent';

/** The Secret key whose value a sink request carries in the named header; the Secret is in the Project's namespace. */
export interface SinkHeaderRef {
  name: string;
  secretKeyRef: { name: string; key: string };
}

/** One undelivered event and where it goes (the sink the Project named when the event happened). */
export interface OutboxEntry {
  sink: string;
  header?: SinkHeaderRef;
  event: CDEvent;
}

export interface StoredOutbox {
  /** `namespace/name` of the Project */
  project: string;
  entries: OutboxEntry[];
}

/** Serialised size an outbox may reach: a ConfigMap holds at most 1 MiB, with room for its metadata. */
export const OUTBOX_MAX_BYTES = 768 * 1024;

export function outboxName(project: string): string {
  return `flotilla-cdevents-${createHash('sha256').update(project).digest('hex').slice(0, 20)}`;
}

export function serialiseEntries(entries: readonly OutboxEntry[]): string {
  return JSON.stringify(entries);
}

export class OutboxStore {
  constructor(
    private readonly client: ObjectClient,
    readonly namespace: string,
  ) {}

  /** Writes the Project's undelivered events (all of them, in order); none deletes the ConfigMap. */
  async save(project: string, entries: readonly OutboxEntry[]): Promise<void> {
    const name = outboxName(project);
    if (entries.length === 0) {
      await this.client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: this.namespace, name });
      return;
    }
    const obj: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: this.namespace, labels: { [OUTBOX_LABEL]: 'true', 'app.kubernetes.io/managed-by': 'flotilla-agent' }, annotations: { [OUTBOX_PROJECT_ANNOTATION]: project } },
      data: { events: serialiseEntries(entries) },
    };
    await this.client.apply(obj, { dryRun: false, force: true, fieldManager: FIELD_MANAGER });
  }

  /** Every stored outbox; one that cannot be read is skipped and reported. */
  async loadAll(onBad: (name: string, why: string) => void): Promise<StoredOutbox[]> {
    const found = await this.client.list('v1', 'ConfigMap', { namespace: this.namespace, labelSelector: `${OUTBOX_LABEL}=true` });
    const outboxes: StoredOutbox[] = [];
    for (const cm of found) {
      const project = cm.metadata.annotations?.[OUTBOX_PROJECT_ANNOTATION];
      const text = (cm as KubeObject & { data?: Record<string, string> }).data?.events;
      if (!project || !text) {
        onBad(cm.metadata.name, 'no project annotation or no events');
        continue;
      }
      try {
        const entries = JSON.parse(text) as OutboxEntry[];
        if (!Array.isArray(entries) || entries.some((e) => typeof e?.sink !== 'string' || typeof e?.event?.context?.id !== 'string')) throw new Error('not a list of events with their sink');
        outboxes.push({ project, entries });
      } catch (err) {
        onBad(cm.metadata.name, err instanceof Error ? err.message : String(err));
      }
    }
    return outboxes;
  }
}
