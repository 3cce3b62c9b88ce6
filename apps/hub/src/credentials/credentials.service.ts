import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';
import { CryptoRepository } from '../crypto/crypto.repository';
import { HUB_LOGGER } from '../logging/logging.module';
import { resealSinkHeader } from '../cdevents/sink-header';
import { resealWebhook } from '../notifications/webhook-url';
import { CdeventOutboxRepository } from '../repositories/cdevent-outbox.repository';
import { type CredentialSummary, CredentialsRepository } from '../repositories/credentials.repository';

export type { CredentialSummary };

export interface RotationResult {
  currentKeyId: string;
  resealed: number;
}

/**
 * Stored credentials outside a transaction (the scheduler opens them here) and
 * key rotation. Writes that belong to a larger change go through the
 * transaction's CredentialsRepository instead.
 */
@Injectable()
export class CredentialsService implements OnModuleInit {
  constructor(
    private readonly repo: CredentialsRepository,
    private readonly crypto: CryptoRepository,
    private readonly outbox: CdeventOutboxRepository,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
  ) {}

  async delete(id: string): Promise<void> {
    await this.repo.delete(id);
  }

  /** Opens a credential for `binding`, where the caller sends it (see credential-binding.ts). */
  reveal<T>(id: string, binding: string): Promise<{ kind: string; secret: T } | null> {
    return this.repo.reveal<T>(id, binding);
  }

  summaries(ids: Array<string | null>): Promise<Map<string, CredentialSummary>> {
    return this.repo.summaries(ids);
  }

  /**
   * Re-seals every credential still under an older key with the current one,
   * keeping its binding: the credentials store's and the Projects' CDEvents
   * sink headers and chat webhooks (also those waiting in the outbox). Values sealed before
   * bindings existed are bound to their owner's endpoint on the way.
   */
  async rotate(): Promise<RotationResult> {
    let resealed = 0;
    for (;;) {
      const batch = await this.repo.bindLegacyBatch(100);
      resealed += batch.bound;
      if (batch.seen === 0 || batch.bound === 0) break;
    }
    for (;;) {
      const batch = await this.repo.resealBatch(100);
      resealed += batch.resealed;
      if (batch.seen === 0) break;
    }
    for (;;) {
      const batch = await this.outbox.resealSinkHeaders(this.crypto.currentKeyId, 100, (h, to) => resealSinkHeader(this.crypto, h, to));
      resealed += batch.resealed;
      // none re-sealed: each changed under us (its writer sealed it with the current key)
      if (batch.seen === 0 || batch.resealed === 0) break;
    }
    for (;;) {
      const batch = await this.outbox.resealWebhooks(this.crypto.currentKeyId, 100, (w, projectId) => resealWebhook(this.crypto, w, projectId));
      resealed += batch.resealed;
      if (batch.seen === 0 || batch.resealed === 0) break;
    }
    return { currentKeyId: this.crypto.currentKeyId, resealed };
  }

  /** A new current key takes effect at start: old data is re-sealed then, before any module opens a credential (the agent CA's key). */
  async onModuleInit(): Promise<void> {
    const r = await this.rotate();
    if (r.resealed > 0) this.logger.info(r, 're-sealed credentials with the current key');
  }
}
