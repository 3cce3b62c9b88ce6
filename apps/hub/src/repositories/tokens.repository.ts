import { type EntityManager, IsNull, type Repository } from 'typeorm';
import { ApiTokenEntity } from '../database/entities';

export class TokensRepository {
  private readonly repo: Repository<ApiTokenEntity>;

  constructor(db: EntityManager) {
    this.repo = db.getRepository(ApiTokenEntity);
  }

  findActiveByHash(tokenHash: string): Promise<ApiTokenEntity | null> {
    return this.repo.findOneBy({ tokenHash, revokedAt: IsNull() });
  }

  findById(id: string): Promise<ApiTokenEntity | null> {
    return this.repo.findOneBy({ id });
  }

  count(): Promise<number> {
    return this.repo.count();
  }

  list(limit: number, offset: number): Promise<[ApiTokenEntity[], number]> {
    return this.repo.findAndCount({ order: { createdAt: 'ASC', id: 'ASC' }, take: limit, skip: offset });
  }

  insert(token: Pick<ApiTokenEntity, 'name' | 'role' | 'tokenHash'>): Promise<ApiTokenEntity> {
    return this.repo.save(this.repo.create({ ...token, revokedAt: null, lastUsedAt: null }));
  }

  /** Inserts unless a token with this hash exists (replicas bootstrapping the same admin token at once). */
  async insertIfAbsent(token: Pick<ApiTokenEntity, 'name' | 'role' | 'tokenHash'>): Promise<boolean> {
    const res = await this.repo.createQueryBuilder().insert().into(ApiTokenEntity).values(token).orIgnore().execute();
    return (res.raw as unknown[]).length > 0;
  }

  async revoke(id: string, at: Date): Promise<void> {
    await this.repo.update({ id }, { revokedAt: at });
  }

  async touch(id: string, at: Date): Promise<void> {
    await this.repo.update({ id }, { lastUsedAt: at });
  }
}
