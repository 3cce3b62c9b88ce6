import { type AgentKeyRequest, certificateMatchesKey, newAgentKeyRequest, renewalDue } from '@flotilla/agent-protocol';
import type { Logger } from '../logging/logger';

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

/**
 * The renewal of one stream's certificate: when it is due, a new key and
 * its CSR go to the hub (`send`); `take` checks the hub's answer against
 * that key. A refusal or a wrong answer is tried again a minute later.
 */
export class CertificateRenewal {
  private timer: NodeJS.Timeout | undefined;
  private pending: AgentKeyRequest | undefined;
  private stopped = false;

  constructor(
    private readonly certPem: string,
    private readonly send: (csrPem: string) => void,
    private readonly log: Logger,
  ) {
    this.schedule(false);
  }

  /** The renewed key and certificate, or undefined when the answer is no renewal of the key asked for. */
  take(answer: { certificatePem: string; error: string }): { keyPem: string; certPem: string } | undefined {
    const key = this.pending;
    this.pending = undefined;
    if (key && answer.certificatePem && certificateMatchesKey(answer.certificatePem, key.keyPem)) return { keyPem: key.keyPem, certPem: answer.certificatePem };
    this.log.warn('the hub did not renew the agent certificate; trying again later', { error: answer.error || 'no certificate of the requested key' });
    this.schedule(true);
    return undefined;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(retry: boolean): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.ask(), renewalDelay(this.certPem, Date.now(), retry));
  }

  private async ask(): Promise<void> {
    try {
      this.pending = await newAgentKeyRequest();
      if (!this.stopped) this.send(this.pending.csrPem);
    } catch (err) {
      this.log.warn('certificate renewal failed', { error: err instanceof Error ? err.message : String(err) });
      this.schedule(true);
    }
  }
}
