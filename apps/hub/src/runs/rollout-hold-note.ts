import type { Condition } from '@flotilla/engine';
import type { EventsService } from '../events/events.service';
import type { Transaction } from '../repositories/unit-of-work';

/** A wave holds a Target back: one event per revision held (its condition says it on every run). `tx`: recorded in it. */
export async function noteHeld(events: EventsService, projectId: string, clusterName: string, conditions: readonly Condition[], message: string, tx?: Transaction): Promise<void> {
  if (conditions.some((c) => c.reason === 'RolloutWaiting' && c.message.startsWith(message))) return;
  await events.record({ projectId, clusterName, type: 'Normal', reason: 'RolloutWaiting', message }, tx);
}
