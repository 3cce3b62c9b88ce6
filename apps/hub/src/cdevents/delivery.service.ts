import { type CDEvent, postCdevent, postWebhook, retryDelayMs, type SinkTarget } from '@flotilla/cdevents';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { CryptoRepository } from '../crypto/crypto.repository';
import { HubEgress } from '../egress/egress.module';
import { HUB_LOGGER } from '../logging/logging.module';
import { CdeventOutboxRepository, type ClaimedDelivery } from '../repositories/cdevent-outbox.repository';
import { CdeventsMetrics } from './cdevents.metrics';
import { DeliveryWakeup } from './delivery-wakeup';
import { openSinkHeader } from './sink-header';
import { openWebhook } from '../notifications/webhook-url';


/** Deliveries claimed per pass: one per Project (the head of its queue), sent in parallel. */
const CLAIM_LIMIT = 16;
/** Receipts of inbound events and delivered rows are kept this long. */
const KEEP_MS = 7 * 24 * 3600 * 1000;
const PRUNE_EVERY_MS = 3600 * 1000;
/** The outbox gauge is recounted at most this often (a count reads every undelivered row). */
const COUNT_EVERY_MS = 15_000;

export interface DeliveryPass {
  delivered: number;
  retried: number;
  failed: number;
}

/**
 * Sends the outbox to the Project sinks (CDEvents) and chat webhooks (rollout
 * notices, Slack-compatible), beside the reconciles (a sink never
 * holds a run up). Each pass leases the oldest pending event of every Project
 * that is due, posts them, and records the outcome; a delivered one lets the
 * Project's next event go in the following pass, right away. A replica that
 * dies mid-delivery leaves a lease that expires, and another (or it, after a
 * restart) sends the event again: at least once, with the same id.
 */
@Injectable()
export class CdeventsDelivery implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private lastPrune = 0;
  private lastCount = 0;

  constructor(
    private readonly outbox: CdeventOutboxRepository,
    private readonly crypto: CryptoRepository,
    private readonly metrics: CdeventsMetrics,
    private readonly wakeup: DeliveryWakeup,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
    private readonly egress: HubEgress,
  ) {}

  /**
   * Delivers in the background on every replica, API-only ones
   * (FLOTILLA_SCHEDULER=off) included: claims are leased, so replicas share
   * the outbox without sending an event twice at once. With
   * FLOTILLA_CDEVENTS_DELIVERY=off (tests) `deliverDue` is called by hand.
   */
  onApplicationBootstrap(): void {
    if (!this.config.cdevents.delivery) return;
    this.wakeup.onWake(() => this.kick());
    this.timer = setInterval(() => this.kick(), this.config.scheduler.tickMs);
    this.timer.unref();
    this.kick();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** Starts passes until nothing more is due; a kick during a pass runs another after it. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          const pass = await this.deliverDue();
          if (pass.delivered > 0) this.again = true;
        } catch (err) {
          this.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'CDEvents delivery pass failed');
        }
      } while (this.again && !this.stopped);
    })().finally(() => (this.running = undefined));
  }

  /** One pass: claim what is due, deliver it, record the outcomes. */
  async deliverDue(): Promise<DeliveryPass> {
    const owner = this.config.scheduler.hubId;
    // the lease outlives the longest delivery, so only a dead replica's claims expire
    const leaseMs = this.config.cdevents.deadlineMs * 2 + 5000;
    const claimed = await this.outbox.claim(owner, leaseMs, CLAIM_LIMIT);
    const pass: DeliveryPass = { delivered: 0, retried: 0, failed: 0 };
    await Promise.all(claimed.map((row) => this.deliver(row, owner, pass)));
    await this.housekeeping(pass);
    return pass;
  }

  private async deliver(row: ClaimedDelivery, owner: string, pass: DeliveryPass): Promise<void> {
    const { backoff, deadlineMs, mode } = this.config.cdevents;
    try {
      if (row.format === 'slack') {
        // the URL is the credential: opened for this request only, sent where credentials may go
        if (!row.webhook) throw new Error('a chat notification without its webhook');
        await postWebhook({ url: openWebhook(this.crypto, row.webhook, row.projectId), shown: row.sinkUrl }, row.payload, { deadlineMs, fetch: this.egress.credentialFetch });
      } else {
        const sink = this.sinkOf(row);
        await postCdevent(sink, row.payload as unknown as CDEvent, { mode, deadlineMs, fetch: sink.header ? this.egress.credentialFetch : this.egress.fetch });
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const state = await this.outbox.attemptFailed(row.id, owner, message, retryDelayMs(backoff, row.attempts + 1), backoff.maxAttempts);
      if (state === 'failed') {
        pass.failed++;
        this.metrics.deliveries.inc({ result: 'failed' });
        this.logger.warn({ project: row.projectName, event: row.eventId, type: row.type, attempts: row.attempts + 1, err: message }, 'CDEvent delivery failed for good; the next event of the Project goes on');
      } else if (state === 'pending') {
        pass.retried++;
        this.metrics.deliveries.inc({ result: 'retried' });
        if (row.attempts === 0) this.logger.warn({ project: row.projectName, event: row.eventId, err: message }, 'CDEvent delivery failed; retrying with backoff');
      }
      return;
    }
    if (await this.outbox.delivered(row.id, owner)) {
      pass.delivered++;
      this.metrics.deliveries.inc({ result: 'delivered' });
    }
  }

  private sinkOf(row: ClaimedDelivery): SinkTarget {
    if (!row.sinkHeader) return { url: row.sinkUrl };
    // sealed for this Project and URL: a header copied to another row or a changed URL does not open
    const value = openSinkHeader(this.crypto, row.sinkHeader, { projectId: row.projectId, sinkUrl: row.sinkUrl });
    return { url: row.sinkUrl, header: { name: row.sinkHeader.name, value } };
  }

  private async housekeeping(pass: DeliveryPass): Promise<void> {
    // a give-up changes the failed count: the metric shows it at once
    if (pass.failed > 0 || Date.now() - this.lastCount >= COUNT_EVERY_MS) {
      this.lastCount = Date.now();
      const counts = await this.outbox.countByState();
      this.metrics.outbox.set({ state: 'pending' }, counts.pending);
      this.metrics.outbox.set({ state: 'failed' }, counts.failed);
    }
    if (Date.now() - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = Date.now();
    await this.outbox.prune(KEEP_MS, KEEP_MS);
  }
}
