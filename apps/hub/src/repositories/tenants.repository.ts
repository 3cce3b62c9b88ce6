import { type EntityManager, In, type Repository } from 'typeorm';
import { AlreadyExistsError } from '../common/errors';
import { TenantEntity } from '../database/entities';
import { isUniqueViolation } from './database-errors';

export class TenantsRepository {
  private readonly repo: Repository<TenantEntity>;

  constructor(private readonly db: EntityManager) {
    this.repo = db.getRepository(TenantEntity);
  }

  findByName(name: string): Promise<TenantEntity | null> {
    return this.repo.findOneBy({ name });
  }

  findByNames(names: readonly string[]): Promise<TenantEntity[]> {
    return names.length === 0 ? Promise.resolve([]) : this.repo.findBy({ name: In([...names]) });
  }

  /** Every tenant (a handful to some hundreds): membership checks each cluster change against all. */
  all(): Promise<TenantEntity[]> {
    return this.repo.find({ order: { name: 'ASC' } });
  }

  list(limit: number, offset: number, names?: readonly string[]): Promise<[TenantEntity[], number]> {
    return this.repo.findAndCount({ where: names ? { name: In([...names]) } : {}, order: { name: 'ASC' }, take: limit, skip: offset });
  }

  /** Throws AlreadyExistsError when the name is taken. */
  async insert(row: Partial<TenantEntity>): Promise<TenantEntity> {
    try {
      return await this.repo.save(this.repo.create(row));
    } catch (err) {
      if (isUniqueViolation(err)) throw new AlreadyExistsError('tenant', row.name ?? '', { cause: err });
      throw err;
    }
  }

  async update(id: string, patch: Partial<TenantEntity>): Promise<void> {
    await this.repo.update({ id }, patch);
  }

  /** Locks the tenant's row until the transaction ends: a deletion and a Project's creation in it take turns. */
  async lock(name: string): Promise<TenantEntity | null> {
    return this.repo.findOne({ where: { name }, lock: { mode: 'pessimistic_write' } });
  }

  async countProjects(name: string): Promise<number> {
    const rows = await this.db.query(`SELECT count(*)::int AS n FROM projects WHERE tenant = $1`, [name]);
    return (rows as Array<{ n: number }>)[0].n;
  }

  async delete(id: string): Promise<void> {
    await this.repo.delete({ id });
  }
}
