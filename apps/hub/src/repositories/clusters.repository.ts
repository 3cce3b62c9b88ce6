import { In, type EntityManager, type Repository } from 'typeorm';
import { AlreadyExistsError } from '../common/errors';
import { ClusterEntity } from '../database/entities';
import type { LabelSelector } from '../database/entities';
import { isUniqueViolation } from './database-errors';
import { whereLabelsMatch } from './label-selector-sql';

export interface ClusterFilter {
  group?: string;
  mode?: string;
  labelSelector?: LabelSelector;
}

export class ClustersRepository {
  private readonly repo: Repository<ClusterEntity>;

  constructor(db: EntityManager) {
    this.repo = db.getRepository(ClusterEntity);
  }

  findByName(name: string): Promise<ClusterEntity | null> {
    return this.repo.findOneBy({ name });
  }

  /** Clusters whose API server has this identity (the kube-system namespace uid). */
  withIdentity(identity: string): Promise<ClusterEntity[]> {
    return this.repo.findBy({ apiServerIdentity: identity });
  }

  /** Names of the clusters by API server identity, for the given identities. */
  async namesByIdentity(identities: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (identities.length === 0) return out;
    const rows = await this.repo.find({ select: { name: true, apiServerIdentity: true }, where: { apiServerIdentity: In([...new Set(identities)]) }, order: { name: 'ASC' } });
    for (const r of rows) out.set(r.apiServerIdentity!, [...(out.get(r.apiServerIdentity!) ?? []), r.name]);
    return out;
  }

  findById(id: string): Promise<ClusterEntity | null> {
    return this.repo.findOneBy({ id });
  }

  existsByName(name: string): Promise<boolean> {
    return this.repo.existsBy({ name });
  }

  /** Every cluster, with only what target selection needs. */
  allForSelection(): Promise<Array<Pick<ClusterEntity, 'id' | 'name' | 'groupName' | 'labels' | 'mode'>>> {
    return this.repo.find({ select: { id: true, name: true, groupName: true, labels: true, mode: true }, order: { name: 'ASC' } });
  }

  async page(filter: ClusterFilter, limit: number, offset: number): Promise<[ClusterEntity[], number]> {
    const qb = this.repo.createQueryBuilder('c').orderBy('c.name', 'ASC').take(limit).skip(offset);
    if (filter.group) qb.andWhere('c.group_name = :group', { group: filter.group });
    if (filter.mode) qb.andWhere('c.mode = :mode', { mode: filter.mode });
    whereLabelsMatch(qb, 'c', filter.labelSelector);
    return qb.getManyAndCount();
  }

  /** Throws AlreadyExistsError when the name is taken (also when a concurrent request took it first). */
  async insert(row: Partial<ClusterEntity>): Promise<ClusterEntity> {
    try {
      return await this.repo.save(this.repo.create(row));
    } catch (err) {
      if (isUniqueViolation(err)) throw new AlreadyExistsError('cluster', row.name ?? '', { cause: err });
      throw err;
    }
  }

  async update(id: string, patch: Partial<ClusterEntity>): Promise<void> {
    await this.repo.update({ id }, patch);
  }

  async delete(id: string): Promise<void> {
    await this.repo.delete({ id });
  }

  /**
   * Claims up to `limit` push clusters not checked for `intervalMs` (database
   * time) by stamping their check time, so replicas never check one twice;
   * returns them for the check, which records its own time and outcome.
   */
  async claimDueChecks(intervalMs: number, limit: number): Promise<ClusterEntity[]> {
    const res: unknown = await this.repo.query(
      `WITH due AS (
         SELECT id FROM clusters
         WHERE mode = 'push' AND server IS NOT NULL AND credential_id IS NOT NULL
           AND (last_checked_at IS NULL OR last_checked_at <= now() - $1 * interval '1 millisecond')
         ORDER BY last_checked_at NULLS FIRST, id
         LIMIT $2
         FOR UPDATE SKIP LOCKED
       )
       UPDATE clusters c SET last_checked_at = now() FROM due WHERE c.id = due.id RETURNING c.id`,
      [intervalMs, limit],
    );
    // node-postgres answers an UPDATE … RETURNING with [rows, count], PGlite with the rows
    const rows = (Array.isArray(res) && res.length === 2 && Array.isArray(res[0]) && typeof res[1] === 'number' ? res[0] : res) as Array<{ id: string }>;
    return rows.length ? this.repo.find({ where: { id: In(rows.map((r) => r.id)) }, order: { name: 'ASC' } }) : [];
  }
}
