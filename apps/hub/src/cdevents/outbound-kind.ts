import type { OutboundKind } from '@flotilla/cdevents';
import type { HubEvent } from '../events/hub-event';

/** The CDEvent a hub event becomes, if any: the Project's lifecycle by its reason; services and incidents as their recorder decided. */
export function outboundKindOf(event: HubEvent): OutboundKind | null {
  if (event.cdevent) return event.cdevent;
  switch (event.reason) {
    case 'Created':
      return 'environment.created';
    case 'SpecChanged':
      return 'environment.modified';
    case 'ProjectDeleted':
      return 'environment.deleted';
    default:
      return null;
  }
}
