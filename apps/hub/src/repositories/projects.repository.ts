import type { EntityManager, Repository } from 'typeorm';
import { AlreadyExistsError } from '../common/errors';
import { ProjectEntity } from '../database/entities';
import { isUniqueViolation } from './database-errors';

export class ProjectsRepository {
  private readonly repo: Repository<ProjectEntity>;

  constructor(db: EntityManager) {
    this.repo = db.getRepository(ProjectEntity);
  }

  findByName(name: string): Promise<ProjectEntity | null> {
    return this.repo.findOneBy({ name });
  }

  findById(id: string): Promise<ProjectEntity | null> {
    return this.repo.findOneBy({ id });
  }

  /** Locks the Project's row until the transaction ends (only inside one): writers that decide from its Targets take turns. */
  async lock(id: string): Promise<boolean> {
    return (await this.repo.findOne({ where: { id }, lock: { mode: 'pessimistic_write' } })) !== null;
  }

  existsByName(name: string): Promise<boolean> {
    return this.repo.existsBy({ name });
  }

  all(): Promise<ProjectEntity[]> {
    return this.repo.find({ order: { name: 'ASC' } });
  }

  page(filter: { suspended?: boolean }, limit: number, offset: number): Promise<[ProjectEntity[], number]> {
    return this.repo.findAndCount({
      where: filter.suspended === undefined ? {} : { suspend: filter.suspended },
      order: { name: 'ASC' },
      take: limit,
      skip: offset,
    });
  }

  /** Throws AlreadyExistsError when the name is taken (also when a concurrent request took it first). */
  async insert(row: Partial<ProjectEntity>): Promise<ProjectEntity> {
    try {
      return await this.repo.save(this.repo.create(row));
    } catch (err) {
      if (isUniqueViolation(err)) throw new AlreadyExistsError('project', row.name ?? '', { cause: err });
      throw err;
    }
  }

  async update(id: string, patch: Partial<ProjectEntity>): Promise<void> {
    await this.repo.update({ id }, patch);
  }

  async delete(id: string): Promise<void> {
    await this.repo.delete({ id });
  }
}
