import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { CryptoRepository } from '../crypto/crypto.repository';
import { HUB_LOGGER } from '../logging/logging.module';
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
export class CredentialsService implements OnApplicationBootstrap {
  constructor(
    private readonly repo: CredentialsRepository,
    private readonly crypto: CryptoRepository,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
  ) {}

  async delete(id: string): Promise<void> {
    await this.repo.delete(id);
  }

  reveal<T>(id: string): Promise<{ kind: string; secret: T } | null> {
    return this.repo.reveal<T>(id);
  }

  summaries(ids: Array<string | null>): Promise<Map<string, CredentialSummary>> {
    return this.repo.summaries(ids);
  }

  /** Re-seals every credential still under an older key with the current one. */
  async rotate(): Promise<RotationResult> {
    let resealed = 0;
    for (;;) {
      const batch = await this.repo.resealBatch(100);
      resealed += batch.resealed;
      if (batch.seen === 0) break;
    }
    return { currentKeyId: this.crypto.currentKeyId, resealed };
  }

  /** A new current key takes effect at start: old data is re-sealed then. */
  async onApplicationBootstrap(): Promise<void> {
    const r = await this.rotate();
    if (r.resealed > 0) this.logger.info(r, 're-sealed credentials with the current key');
  }
}
