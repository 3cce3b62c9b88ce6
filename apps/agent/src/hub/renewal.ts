import { renewalDue } from '@flotilla/agent-protocol';

// Node's timers hold at most 2^31-1 ms (~24.8 days); a later renewal is looked at again then
const MAX_TIMER_MS = 2 ** 31 - 1;
const RETRY_MS = 60_000;

/**
 * How long until the agent asks for a new certificate: two thirds into the
 * current one's life (at once when that is past); a minute after a failed
 * attempt.
 */
export function renewalDelay(certPem: string, now: number, retry: boolean): number {
  if (retry) return RETRY_MS;
  return Math.min(MAX_TIMER_MS, Math.max(0, renewalDue(certPem).getTime() - now));
}
