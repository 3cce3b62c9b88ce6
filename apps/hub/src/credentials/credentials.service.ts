import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { CryptoRepository } from '../crypto/crypto.repository';
import type { CredentialEntity } from '../database/entities';
import { HUB_LOGGER } from '../logging/logging.module';
import { CredentialsRepository } from './credentials.repository';

/** What API responses may show about a credential. */
export interface CredentialSummary {
  kind: string;
  fingerprint: string;
}

export interface RotationResult {
  currentKeyId: string;
  resealed: number;
}

/**
 * Secrets at rest: sealed with AES-256-GCM (bound to their kind), identified
 * by a fingerprint, opened only where they are used.
 */
@Injectable()
export class CredentialsService implements OnApplicationBootstrap {
  constructor(
    private readonly repo: CredentialsRepository,
    private readonly crypto: CryptoRepository,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
  ) {}

  async store(kind: string, secret: object): Promise<CredentialEntity> {
    return this.repo.insert(this.seal(kind, secret));
  }

  async replace(id: string, kind: string, secret: object): Promise<void> {
    await this.repo.update(id, this.seal(kind, secret));
  }

  async delete(id: string): Promise<void> {
    await this.repo.delete(id);
  }

  async reveal<T>(id: string): Promise<{ kind: string; secret: T } | null> {
    const row = await this.repo.findById(id);
    if (!row) return null;
    return { kind: row.kind, secret: JSON.parse(this.crypto.open(row, aad(row.kind))) as T };
  }

  /** Summaries of many credentials in one query, by id. */
  async summaries(ids: Array<string | null>): Promise<Map<string, CredentialSummary>> {
    const rows = await this.repo.findByIds(ids.filter((id): id is string => id !== null));
    return new Map(rows.map((r) => [r.id, { kind: r.kind, fingerprint: r.fingerprint }]));
  }

  /** Re-seals every credential still under an older key with the current one. */
  async rotate(): Promise<RotationResult> {
    const current = this.crypto.currentKeyId;
    let resealed = 0;
    for (;;) {
      const batch = await this.repo.sealedWithOtherKey(current, 100);
      if (batch.length === 0) break;
      for (const row of batch) {
        const plain = this.crypto.open(row, aad(row.kind));
        const sealed = this.crypto.seal(plain, aad(row.kind));
        if (await this.repo.reseal(row.id, row.envelope, sealed.keyId, sealed.envelope)) resealed++;
      }
    }
    return { currentKeyId: current, resealed };
  }

  /** A new current key takes effect at start: old data is re-sealed then. */
  async onApplicationBootstrap(): Promise<void> {
    const r = await this.rotate();
    if (r.resealed > 0) this.logger.info(r, 're-sealed credentials with the current key');
  }

  private seal(kind: string, secret: object) {
    const plain = JSON.stringify(secret);
    const sealed = this.crypto.seal(plain, aad(kind));
    return { kind, keyId: sealed.keyId, envelope: sealed.envelope, fingerprint: `sha256:${this.crypto.sha256Hex(plain).slice(0, 16)}` };
  }
}

function aad(kind: string): string {
  return `flotilla/credential/${kind}`;
}
