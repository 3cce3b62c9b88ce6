import { randomUUID } from 'node:crypto';
import { buildCdevent, type OutboundKind } from '@flotilla/cdevents';
import { Injectable } from '@nestjs/common';
import type { RecordedEvent } from '../events/hub-event';
import type { CdeventOutboxRepository } from '../repositories/cdevent-outbox.repository';

/** The producer every hub replica names: the fleet is one source. */
export const HUB_SOURCE = '/flotilla/hub';

/**
 * Turns a recorded hub event into a CDEvent row of the outbox, in the
 * caller's transaction, when its Project has a sink. The event's id is
 * fixed here, once: every retry sends the same one.
 */
@Injectable()
export class OutboxWriter {
  /** True when a row was written (the caller wakes the delivery after commit). */
  async enqueue(kind: OutboundKind, event: RecordedEvent, outbox: CdeventOutboxRepository): Promise<boolean> {
    const project = await outbox.sinkOf(event.projectId);
    if (!project?.sinkUrl) return false;
    const payload = buildCdevent({
      id: randomUUID(),
      time: event.time,
      source: HUB_SOURCE,
      kind,
      project: { name: project.name, namespace: project.namespace },
      repository: project.repository,
      ...(event.clusterName ? { cluster: event.clusterName } : {}),
      ...(event.revision ? { revision: event.revision } : {}),
      ...(event.instance ? { instance: { name: event.instance, namespace: event.namespace ?? project.namespace, ...(event.component ? { component: event.component } : {}) } } : {}),
      reason: event.reason,
      message: event.message,
      ...(event.type === 'Warning' ? { error: event.message } : {}),
    });
    await outbox.insert({ eventId: payload.context.id, projectId: event.projectId, projectName: project.name, type: payload.context.type, payload, sinkUrl: project.sinkUrl, sinkHeader: project.sinkHeader });
    return true;
  }
}
