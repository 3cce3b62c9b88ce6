// The message budget of one agent stream: a token bucket for reports, one
// for events and one for everything else, so a flood of one kind is cut
// before it queues work, and heartbeats never wait behind reports.
import type { ConnectRequest } from '@flotilla/agent-protocol';
import type { AgentStreamRates } from '../config/hub-config';
import { TokenBucket } from './token-bucket';

export type MessageKind = 'reports' | 'events' | 'other';

export function kindOf(m: ConnectRequest): MessageKind {
  const c = m.body?.$case;
  return c === 'report' ? 'reports' : c === 'event' ? 'events' : 'other';
}

export class StreamRates {
  private readonly buckets: Record<MessageKind, TokenBucket>;

  constructor(
    private readonly rates: AgentStreamRates,
    now: number,
  ) {
    this.buckets = { reports: new TokenBucket(rates.reports, now), events: new TokenBucket(rates.events, now), other: new TokenBucket(rates.other, now) };
  }

  /** Whether a message of `kind` at `now` (ms) is within the stream's budget; it takes its token. */
  allow(kind: MessageKind, now: number): boolean {
    return this.buckets[kind].take(now);
  }

  /** The refusal the agent reads. */
  describe(kind: MessageKind): string {
    const r = this.rates[kind];
    const what = kind === 'other' ? 'messages other than reports and events' : kind;
    return `the agent sent more ${what} than one stream may (${r.burst} at once, then ${r.perSecond} per second): reconnect later; reports the hub did not acknowledge go in the next Hello`;
  }
}
