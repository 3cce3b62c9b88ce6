import { Injectable } from '@nestjs/common';
import { DataSource, type Repository } from 'typeorm';
import { ProjectEntity } from '../database/entities';

@Injectable()
export class ProjectsRepository {
  private readonly repo: Repository<ProjectEntity>;

  constructor(ds: DataSource) {
    this.repo = ds.getRepository(ProjectEntity);
  }

  findByName(name: string): Promise<ProjectEntity | null> {
    return this.repo.findOneBy({ name });
  }

  findById(id: string): Promise<ProjectEntity | null> {
    return this.repo.findOneBy({ id });
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

  insert(row: Partial<ProjectEntity>): Promise<ProjectEntity> {
    return this.repo.save(this.repo.create(row));
  }

  async update(id: string, patch: Partial<ProjectEntity>): Promise<void> {
    await this.repo.update({ id }, patch);
  }

  async delete(id: string): Promise<void> {
    await this.repo.delete({ id });
  }
}
