import { type BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { Counter } from 'prom-client';
import { isDatabaseUnreachable } from '../common/database-outage';
import { loggableError } from '../common/http-exception.filter';
import { HUB_LOGGER } from '../logging/logging.module';
import { MetricsRegistry } from '../metrics/metrics.module';
import { AuditRepository } from '../repositories/audit.repository';
import { type AuditEntry, formatObject } from './audit-entry';
import { AuditQueue, defaultAuditQueueOptions } from './audit-queue';

/**
 * Takes each entry from the request path: one structured log line at once
 * (`audit: true`), and a place in a bounded queue that is written in batches,
 * so recording costs a request no database round trip and cannot fail it.
 */
@Injectable()
export class AuditRecorder implements BeforeApplicationShutdown {
  private readonly queue: AuditQueue<AuditEntry>;
  private readonly written: Counter;
  private readonly dropped: Counter<'reason'>;
  private dropsLogged = 0;
  /** the last write failed: the next failure is not logged again, the next success is */
  private failing = false;

  constructor(
    private readonly audit: AuditRepository,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
    metrics: MetricsRegistry,
  ) {
    this.written = new Counter({ name: 'flotilla_audit_entries_written_total', help: 'Audit entries stored', registers: [metrics] });
    this.dropped = new Counter({
      name: 'flotilla_audit_entries_dropped_total',
      help: 'Audit entries not stored: the queue was full (database slow or away), the database refused the batch, or the hub was stopping',
      labelNames: ['reason'],
      registers: [metrics],
    });
    this.queue = new AuditQueue<AuditEntry>(defaultAuditQueueOptions(), {
      write: (batch) => this.write(batch),
      dropped: (entry, why) => this.drop(why === 'full' ? 'queue_full' : 'shutdown', 1, entry),
      failed: (err, size) => {
        // once per outage, not once per retry
        if (!this.failing) this.logger.warn({ err: loggableError(err), queued: size }, 'audit entries not written yet; retrying');
        this.failing = true;
      },
    });
  }

  /** Logs the entry and queues it for the database. Never throws, never waits. */
  record(entry: AuditEntry): void {
    this.logger.info(auditLogFields(entry), 'audit');
    this.queue.push(entry);
  }

  /** Resolves once everything queued so far is stored (or its write failed). */
  flush(): Promise<void> {
    return this.queue.flush();
  }

  get queued(): number {
    return this.queue.size;
  }

  // before the database closes (onApplicationShutdown)
  async beforeApplicationShutdown(): Promise<void> {
    await this.queue.close();
    if (this.queue.size > 0) this.drop('shutdown', this.queue.size);
  }

  /** An unreachable database keeps the batch queued; any other refusal would refuse it forever, so it is dropped and said. */
  private async write(batch: AuditEntry[]): Promise<void> {
    try {
      await this.audit.append(batch);
      this.written.inc(batch.length);
      if (this.failing) this.logger.info({ count: batch.length }, 'audit entries written again');
      this.failing = false;
    } catch (err) {
      if (isDatabaseUnreachable(err)) throw err;
      this.logger.error({ err: loggableError(err), count: batch.length }, 'audit entries refused by the database; dropped (their log lines remain)');
      this.dropped.inc({ reason: 'refused' }, batch.length);
    }
  }

  /** Counted always; logged once per 100 so a long outage does not flood the log. */
  private drop(reason: string, count: number, entry?: AuditEntry): void {
    this.dropped.inc({ reason }, count);
    if (this.dropsLogged++ % 100 === 0) this.logger.warn({ reason, count, requestId: entry?.requestId }, 'audit entries dropped (their log lines remain); see flotilla_audit_entries_dropped_total');
  }
}

/** The log line's fields: the entry, flat, with `audit: true` to find them by. */
export function auditLogFields(e: AuditEntry): Record<string, unknown> {
  return {
    audit: true,
    at: e.at.toISOString(),
    actorKind: e.actor.kind,
    actorId: e.actor.id,
    actorName: e.actor.name,
    actorEmail: e.actor.email,
    tenant: e.tenant,
    action: e.action,
    object: formatObject(e.object),
    outcome: e.outcome,
    requestId: e.requestId,
    sourceAddress: e.sourceAddress,
  };
}
