import { Injectable } from '@nestjs/common';
import { DataSource, type Repository } from 'typeorm';
import { ClusterEntity } from '../database/entities';
import type { LabelSelector } from '../database/entities';
import { whereLabelsMatch } from '../targeting/label-selector-sql';

export interface ClusterFilter {
  group?: string;
  mode?: string;
  labelSelector?: LabelSelector;
}

@Injectable()
export class ClustersRepository {
  private readonly repo: Repository<ClusterEntity>;

  constructor(ds: DataSource) {
    this.repo = ds.getRepository(ClusterEntity);
  }

  findByName(name: string): Promise<ClusterEntity | null> {
    return this.repo.findOneBy({ name });
  }

  findById(id: string): Promise<ClusterEntity | null> {
    return this.repo.findOneBy({ id });
  }

  existsByName(name: string): Promise<boolean> {
    return this.repo.existsBy({ name });
  }

  /** Every cluster, with only what target selection needs. */
  allForSelection(): Promise<Array<Pick<ClusterEntity, 'id' | 'name' | 'groupName' | 'labels'>>> {
    return this.repo.find({ select: { id: true, name: true, groupName: true, labels: true }, order: { name: 'ASC' } });
  }

  async page(filter: ClusterFilter, limit: number, offset: number): Promise<[ClusterEntity[], number]> {
    const qb = this.repo.createQueryBuilder('c').orderBy('c.name', 'ASC').take(limit).skip(offset);
    if (filter.group) qb.andWhere('c.group_name = :group', { group: filter.group });
    if (filter.mode) qb.andWhere('c.mode = :mode', { mode: filter.mode });
    whereLabelsMatch(qb, 'c', filter.labelSelector);
    return qb.getManyAndCount();
  }

  insert(row: Partial<ClusterEntity>): Promise<ClusterEntity> {
    return this.repo.save(this.repo.create(row));
  }

  async update(id: string, patch: Partial<ClusterEntity>): Promise<void> {
    await this.repo.update({ id }, patch);
  }

  async delete(id: string): Promise<void> {
    await this.repo.delete({ id });
  }
}
