import { type EntityManager, In, Like, Not, type Repository } from 'typeorm';
import { FINGERPRINT_PREFIX, type CryptoRepository } from '../crypto/crypto.repository';
import { CredentialEntity } from '../database/entities';

/** What API responses may show about a credential. */
export interface CredentialSummary {
  kind: string;
  fingerprint: string;
}

/**
 * The credentials store: secrets at rest, sealed with AES-256-GCM (bound to
 * their kind) on the way in, identified by a fingerprint, opened only where
 * they are used.
 */
export class CredentialsRepository {
  private readonly repo: Repository<CredentialEntity>;

  constructor(
    db: EntityManager,
    private readonly crypto: CryptoRepository,
  ) {
    this.repo = db.getRepository(CredentialEntity);
  }

  store(kind: string, secret: object): Promise<CredentialEntity> {
    return this.repo.save(this.repo.create(this.seal(kind, secret)));
  }

  async replace(id: string, kind: string, secret: object): Promise<void> {
    await this.repo.update({ id }, this.seal(kind, secret));
  }

  async delete(id: string): Promise<void> {
    await this.repo.delete({ id });
  }

  async reveal<T>(id: string): Promise<{ kind: string; secret: T } | null> {
    const row = await this.repo.findOneBy({ id });
    if (!row) return null;
    return { kind: row.kind, secret: JSON.parse(this.crypto.open(row, aad(row.kind))) as T };
  }

  /** Summaries of many credentials in one query, by id. */
  async summaries(ids: Array<string | null>): Promise<Map<string, CredentialSummary>> {
    const wanted = ids.filter((id): id is string => id !== null);
    const rows = wanted.length ? await this.repo.findBy({ id: In(wanted) }) : [];
    return new Map(rows.map((r) => [r.id, { kind: r.kind, fingerprint: r.fingerprint }]));
  }

  /**
   * Re-seals up to `limit` rows still under another key than the current one,
   * or with an unkeyed fingerprint of an older hub; a row changed meanwhile (a
   * concurrent rotation or edit) is left to its writer.
   * Returns how many rows were looked at and how many re-sealed.
   */
  async resealBatch(limit: number): Promise<{ seen: number; resealed: number }> {
    const current = this.crypto.currentKeyId;
    const batch = await this.repo.find({ where: [{ keyId: Not(current) }, { fingerprint: Not(Like(`${FINGERPRINT_PREFIX}%`)) }], order: { id: 'ASC' }, take: limit });
    let resealed = 0;
    for (const row of batch) {
      const plain = this.crypto.open(row, aad(row.kind));
      const sealed = this.crypto.seal(plain, aad(row.kind));
      const res = await this.repo.update({ id: row.id, envelope: row.envelope }, { keyId: sealed.keyId, envelope: sealed.envelope, fingerprint: this.crypto.fingerprint(plain) });
      if ((res.affected ?? 0) > 0) resealed++;
    }
    return { seen: batch.length, resealed };
  }

  private seal(kind: string, secret: object): Pick<CredentialEntity, 'kind' | 'keyId' | 'envelope' | 'fingerprint'> {
    const plain = JSON.stringify(secret);
    const sealed = this.crypto.seal(plain, aad(kind));
    return { kind, keyId: sealed.keyId, envelope: sealed.envelope, fingerprint: this.crypto.fingerprint(plain) };
  }
}

function aad(kind: string): string {
  return `flotilla/credential/${kind}`;
}
