import { type EntityManager, In, IsNull, Like, Not, type Repository } from 'typeorm';
import {
  AGENT_CA_BINDING,
  clusterServerBinding,
  credentialAad,
  CredentialBindingError,
  legacyCredentialAad,
  ORPHAN_BINDING,
  registryHostBinding,
} from '../credentials/credential-binding';
import { FINGERPRINT_PREFIX, type CryptoRepository } from '../crypto/crypto.repository';
import { CredentialEntity } from '../database/entities';

/** What API responses may show about a credential. */
export interface CredentialSummary {
  kind: string;
  fingerprint: string;
}

/**
 * The credentials store: secrets at rest, sealed with AES-256-GCM on the way
 * in, identified by a fingerprint, opened only where they are used. The
 * sealed value's associated data names its row, its kind and its binding
 * (the endpoint it was given for): it opens only for that row and endpoint.
 */
export class CredentialsRepository {
  private readonly repo: Repository<CredentialEntity>;

  constructor(
    private readonly db: EntityManager,
    private readonly crypto: CryptoRepository,
  ) {
    this.repo = db.getRepository(CredentialEntity);
  }

  /** Stores a secret that may go to `binding` only (see credential-binding.ts). */
  store(kind: string, secret: object, binding: string): Promise<CredentialEntity> {
    const id = this.crypto.newId();
    return this.repo.save(this.repo.create({ id, ...this.seal(id, kind, secret, binding) }));
  }

  async replace(id: string, kind: string, secret: object, binding: string): Promise<void> {
    await this.repo.update({ id }, this.seal(id, kind, secret, binding));
  }

  async delete(id: string): Promise<void> {
    await this.repo.delete({ id });
  }

  /**
   * Opens a credential for `binding`, the endpoint the caller is about to
   * send it to; a credential bound elsewhere is CredentialBindingError, one
   * copied from another row DecryptionError.
   */
  async reveal<T>(id: string, binding: string): Promise<{ kind: string; secret: T } | null> {
    const row = await this.repo.findOneBy({ id });
    if (!row) return null;
    if (row.boundTo === null) throw new CredentialBindingError(`credential ${id} was sealed by an older hub and is not bound yet: restart the hub to re-seal it`);
    if (row.boundTo !== binding) {
      throw new CredentialBindingError(`credential ${id} is bound to "${row.boundTo}", not "${binding}": it is not sent there; give new credentials together with the new endpoint`);
    }
    return { kind: row.kind, secret: JSON.parse(this.crypto.open(row, credentialAad(row.id, row.kind, binding))) as T };
  }

  /** Summaries of many credentials in one query, by id. */
  async summaries(ids: Array<string | null>): Promise<Map<string, CredentialSummary>> {
    const wanted = ids.filter((id): id is string => id !== null);
    const rows = wanted.length ? await this.repo.findBy({ id: In(wanted) }) : [];
    return new Map(rows.map((r) => [r.id, { kind: r.kind, fingerprint: r.fingerprint }]));
  }

  /**
   * Re-seals up to `limit` bound rows still under another key than the
   * current one, or with an unkeyed fingerprint of an older hub, keeping
   * their binding; a row changed meanwhile (a concurrent rotation or edit) is
   * left to its writer. Returns how many rows were looked at and how many re-sealed.
   */
  async resealBatch(limit: number): Promise<{ seen: number; resealed: number }> {
    const current = this.crypto.currentKeyId;
    const bound = { boundTo: Not(IsNull()) };
    const batch = await this.repo.find({
      where: [
        { ...bound, keyId: Not(current) },
        { ...bound, fingerprint: Not(Like(`${FINGERPRINT_PREFIX}%`)) },
      ],
      order: { id: 'ASC' },
      take: limit,
    });
    let resealed = 0;
    for (const row of batch) {
      const aad = credentialAad(row.id, row.kind, row.boundTo!);
      const plain = this.crypto.open(row, aad);
      if (await this.rewrite(row, plain, aad, row.boundTo!)) resealed++;
    }
    return { seen: batch.length, resealed };
  }

  /**
   * Binds up to `limit` rows sealed before bindings existed: each is opened
   * with the old associated data and sealed again for its owner's endpoint
   * (the cluster's server, the Project's registry host, the agent CA).
   */
  async bindLegacyBatch(limit: number): Promise<{ seen: number; bound: number }> {
    const rows = (await this.db.query(
      `SELECT c.id, c.kind, c.key_id AS "keyId", c.envelope, cl.server AS "clusterServer", p.source_repository AS "sourceRepository", (ca.key_credential_id IS NOT NULL) AS "agentCa"
         FROM credentials c
         LEFT JOIN clusters cl ON cl.credential_id = c.id
         LEFT JOIN projects p ON p.registry_credential_id = c.id
         LEFT JOIN agent_ca ca ON ca.key_credential_id = c.id
        WHERE c.bound_to IS NULL ORDER BY c.id LIMIT $1`,
      [limit],
    )) as Array<{ id: string; kind: string; keyId: string; envelope: string; clusterServer: string | null; sourceRepository: string | null; agentCa: boolean }>;
    let bound = 0;
    for (const row of rows) {
      const binding = row.clusterServer
        ? clusterServerBinding(row.clusterServer)
        : row.sourceRepository
          ? registryHostBinding(row.sourceRepository)
          : row.agentCa
            ? AGENT_CA_BINDING
            : ORPHAN_BINDING;
      const plain = this.crypto.open(row, legacyCredentialAad(row.kind));
      if (await this.rewrite(row, plain, credentialAad(row.id, row.kind, binding), binding)) bound++;
    }
    return { seen: rows.length, bound };
  }

  /** Seals `plain` again with the current key unless the row changed since it was read. */
  private async rewrite(row: Pick<CredentialEntity, 'id' | 'envelope'>, plain: string, aad: string, binding: string): Promise<boolean> {
    const sealed = this.crypto.seal(plain, aad);
    const res = await this.repo.update({ id: row.id, envelope: row.envelope }, { keyId: sealed.keyId, envelope: sealed.envelope, boundTo: binding, fingerprint: this.crypto.fingerprint(plain) });
    return (res.affected ?? 0) > 0;
  }

  private seal(id: string, kind: string, secret: object, binding: string): Pick<CredentialEntity, 'kind' | 'keyId' | 'envelope' | 'fingerprint' | 'boundTo'> {
    const plain = JSON.stringify(secret);
    const sealed = this.crypto.seal(plain, credentialAad(id, kind, binding));
    return { kind, keyId: sealed.keyId, envelope: sealed.envelope, boundTo: binding, fingerprint: this.crypto.fingerprint(plain) };
  }
}
