import type { Condition } from '@flotilla/engine';
import type { EventsService } from '../events/events.service';

/** A wave holds a Target back: one event per revision held (its condition says it on every run). */
export async function noteHeld(events: EventsService, projectId: string, clusterName: string, conditions: readonly Condition[], message: string): Promise<void> {
  if (conditions.some((c) => c.reason === 'RolloutWaiting' && c.message.startsWith(message))) return;
  await events.record({ projectId, clusterName, type: 'Normal', reason: 'RolloutWaiting', message });
}
