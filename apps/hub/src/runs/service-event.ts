import { type InstanceHistory, type OutboundKind, serviceChange } from '@flotilla/cdevents';
import type { ReportInstance } from '@flotilla/engine';

/**
 * The service CDEvent an instance's outcome is: removed when pruned or
 * deleted, else deployed, upgraded or rolled back by its history (instanceHistories); none for
 * a failure (the run's incident tells it) or a re-apply of what it runs.
 */
export function serviceEventOf(histories: ReadonlyMap<string, InstanceHistory>, i: ReportInstance, revision: string | null): OutboundKind | undefined {
  if (i.error) return undefined;
  if (i.action !== 'applied') return 'service.removed';
  if (!revision) return undefined;
  const change = serviceChange(histories.get(`${i.namespace}/${i.name}`), revision);
  return change ? `service.${change}` : undefined;
}
