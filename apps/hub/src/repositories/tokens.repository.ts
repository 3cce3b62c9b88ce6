import { type EntityManager, IsNull, Not, type Repository } from 'typeorm';
import { ApiTokenEntity, type TokenSource } from '../database/entities';

type NewToken = Pick<ApiTokenEntity, 'name' | 'role' | 'tokenHash'> & { expiresAt?: Date | null; source?: TokenSource; tenant?: string | null };

export class TokensRepository {
  private readonly repo: Repository<ApiTokenEntity>;

  constructor(db: EntityManager) {
    this.repo = db.getRepository(ApiTokenEntity);
  }

  /** Not revoked; expired tokens are returned too, so the caller can say "expired". */
  findActiveByHash(tokenHash: string): Promise<ApiTokenEntity | null> {
    return this.repo.findOneBy({ tokenHash, revokedAt: IsNull() });
  }

  findByHash(tokenHash: string): Promise<ApiTokenEntity | null> {
    return this.repo.findOneBy({ tokenHash });
  }

  findById(id: string): Promise<ApiTokenEntity | null> {
    return this.repo.findOneBy({ id });
  }

  /** Admin tokens that work at `now`: neither revoked nor expired. */
  countUsableAdmins(now: Date): Promise<number> {
    return this.repo
      .createQueryBuilder('t')
      .where(`t.role = 'admin' AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > :now)`, { now })
      .getCount();
  }

  list(limit: number, offset: number): Promise<[ApiTokenEntity[], number]> {
    return this.repo.findAndCount({ order: { createdAt: 'ASC', id: 'ASC' }, take: limit, skip: offset });
  }

  insert(token: NewToken): Promise<ApiTokenEntity> {
    return this.repo.save(this.repo.create({ expiresAt: null, source: 'api', ...token, revokedAt: null, lastUsedAt: null }));
  }

  /** Inserts unless a token with this hash exists (replicas bootstrapping the same admin token at once). */
  async insertIfAbsent(token: NewToken): Promise<boolean> {
    const res = await this.repo.createQueryBuilder().insert().into(ApiTokenEntity).values(token).orIgnore().execute();
    return (res.raw as unknown[]).length > 0;
  }

  /** Marks the token with this hash as coming from `source` (a row from before sources were recorded). */
  async setSource(tokenHash: string, source: TokenSource): Promise<void> {
    await this.repo.update({ tokenHash }, { source });
  }

  /** Revokes every live token from `source` whose hash is not `keepHash`; returns their ids. */
  async revokeFromSourceExcept(source: TokenSource, keepHash: string | undefined, at: Date): Promise<string[]> {
    const rows = await this.repo.findBy({ source, revokedAt: IsNull(), ...(keepHash ? { tokenHash: Not(keepHash) } : {}) });
    if (rows.length > 0) await this.repo.update(rows.map((r) => r.id), { revokedAt: at });
    return rows.map((r) => r.id);
  }

  /** The tokens issued for a tenant, revoked or not (they go with it). */
  async idsOfTenant(tenant: string): Promise<string[]> {
    return (await this.repo.find({ select: { id: true }, where: { tenant } })).map((r) => r.id);
  }

  async revoke(id: string, at: Date): Promise<void> {
    await this.repo.update({ id }, { revokedAt: at });
  }

  async touch(id: string, at: Date): Promise<void> {
    await this.repo.update({ id }, { lastUsedAt: at });
  }
}
