import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { Clock } from '../common/clock';
import { loggableError } from '../common/http-exception.filter';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { HUB_LOGGER } from '../logging/logging.module';
import { AuditRepository } from '../repositories/audit.repository';

/**
 * Deletes entries older than FLOTILLA_AUDIT_RETENTION, every
 * FLOTILLA_AUDIT_PURGE_INTERVAL, through the purge function the append-only
 * trigger lets through. Every replica may purge: the deletes are idempotent.
 */
@Injectable()
export class AuditRetention implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(
    private readonly audit: AuditRepository,
    private readonly clock: Clock,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    const every = this.config.audit.purgeIntervalMs;
    if (every === 0) return;
    this.timer = setInterval(() => {
      this.purge().catch((err: unknown) => this.logger.warn({ err: loggableError(err) }, 'audit purge failed; retrying at the next interval'));
    }, every);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Deletes the entries older than the retention as of the Clock's now; returns how many. One purge at a time. */
  purge(): Promise<number> {
    this.running ??= (async () => {
      const cutoff = new Date(this.clock.now().getTime() - this.config.audit.retentionMs);
      const n = await this.audit.purgeBefore(cutoff);
      if (n > 0) this.logger.info({ deleted: n, before: cutoff.toISOString() }, 'purged audit entries past their retention');
      return n;
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }
}
