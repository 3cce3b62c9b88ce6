import { randomUUID } from 'node:crypto';
import { buildCdevent, type OutboundKind } from '@flotilla/cdevents';
import { Inject, Injectable } from '@nestjs/common';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { projectPageUrl } from '../config/public-url';
import type { RecordedEvent } from '../events/hub-event';
import { slackMessage } from '../notifications/slack-message';
import type { CdeventOutboxRepository, ProjectSink } from '../repositories/cdevent-outbox.repository';

/** The producer every hub replica names: the fleet is one source. */
export const HUB_SOURCE = '/flotilla/hub';

/**
 * Turns a recorded hub event into rows of the outbox, in the caller's
 * transaction: a CDEvent when its Project has a sink, and for a rollout
 * wave's change a chat message when it has a webhook. Both rows of one event
 * keep its order among the Project's events. The event's id is fixed here,
 * once: every retry sends the same one.
 */
@Injectable()
export class OutboxWriter {
  constructor(@Inject(HUB_CONFIG) private readonly config: HubConfig) {}

  /** True when a row was written (the caller wakes the delivery after commit). */
  async enqueue(kind: OutboundKind | null, event: RecordedEvent, outbox: CdeventOutboxRepository): Promise<boolean> {
    if (!kind && !event.wave) return false;
    const project = await outbox.sinkOf(event.projectId);
    if (!project) return false;
    let written = false;
    if (kind && project.sinkUrl) {
      await this.enqueueCdevent(kind, event, project, outbox);
      written = true;
    }
    if (event.wave && event.revision && project.webhook) {
      const page = this.config.publicUrl ? projectPageUrl(this.config.publicUrl, project.name) : undefined;
      const message = slackMessage(project.name, event.revision, event.wave, page);
      await outbox.insert({
        eventId: randomUUID(), projectId: event.projectId, projectName: project.name, type: `chat.${event.reason}`, payload: message,
        sinkUrl: project.webhook.shown, sinkHeader: null, format: 'slack', webhook: project.webhook,
      });
      written = true;
    }
    return written;
  }

  private async enqueueCdevent(kind: OutboundKind, event: RecordedEvent, project: ProjectSink, outbox: CdeventOutboxRepository): Promise<void> {
    if (!project.sinkUrl) return;
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
      ...(event.wave ? { wave: event.wave } : {}),
    });
    await outbox.insert({ eventId: payload.context.id, projectId: event.projectId, projectName: project.name, type: payload.context.type, payload, sinkUrl: project.sinkUrl, sinkHeader: project.sinkHeader });
  }
}
