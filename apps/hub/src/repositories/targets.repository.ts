import { type EntityManager, In, type Repository, type SelectQueryBuilder } from 'typeorm';
import { ReferenceGoneError } from '../common/errors';
import { TargetEntity } from '../database/entities';
import type { LabelSelector, TargetPhase } from '../database/entities';
import type { Condition } from '@flotilla/engine';
import { isForeignKeyViolation } from './database-errors';
import { hasConditions, whereLabelsMatch } from './label-selector-sql';

/** Narrows a Project's Targets by their phase or their cluster's group and labels. */
export interface TargetFilter {
  phase?: string;
  group?: string;
  labelSelector?: LabelSelector;
}

// Any fixed 64-bit number names the lock; distinct from the migration lock.
const MEMBERSHIP_LOCK = '7380676954236969314';

export class TargetsRepository {
  private readonly repo: Repository<TargetEntity>;

  constructor(db: EntityManager) {
    this.repo = db.getRepository(TargetEntity);
  }

  /**
   * Serializes membership changes until the transaction ends. Two transactions
   * that each add a cluster and a Project would otherwise not see each other's
   * row and both miss the Target between them; with the lock, the later one
   * reads after the earlier one committed. Only valid inside a transaction.
   */
  async lockMembership(): Promise<void> {
    await this.repo.query('SELECT pg_advisory_xact_lock($1)', [MEMBERSHIP_LOCK]);
  }

  forProject(projectId: string): Promise<TargetEntity[]> {
    return this.repo.find({ where: { projectId }, relations: { cluster: true }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  findById(id: string): Promise<TargetEntity | null> {
    return this.repo.findOneBy({ id });
  }

  forCluster(clusterId: string): Promise<TargetEntity[]> {
    return this.repo.find({ where: { clusterId }, relations: { project: true }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  findByClusterName(projectId: string, clusterName: string): Promise<TargetEntity | null> {
    // one query: findOne with relations adds a DISTINCT id query before it
    return this.repo
      .createQueryBuilder('t')
      .innerJoinAndSelect('t.cluster', 'c')
      .where('t.project_id = :projectId AND c.name = :clusterName', { projectId, clusterName })
      .getOne();
  }

  async pageForProject(projectId: string, filter: TargetFilter, limit: number, offset: number): Promise<[TargetEntity[], number]> {
    const filtered = (qb: SelectQueryBuilder<TargetEntity>, joinClusters: boolean) => {
      if (joinClusters) qb.innerJoin('t.cluster', 'c');
      qb.where('t.project_id = :projectId', { projectId });
      if (filter.phase) qb.andWhere('t.phase = :phase', { phase: filter.phase });
      if (filter.group) qb.andWhere('c.group_name = :group', { group: filter.group });
      whereLabelsMatch(qb, 'c', filter.labelSelector);
      return qb;
    };
    // One cluster per Target, so plain LIMIT/OFFSET and count(*) are exact; take/skip and
    // getManyAndCount would wrap both in DISTINCT subqueries built for one-to-many joins.
    // The count joins clusters only when a filter reads them, so it stays on an index.
    const byCluster = filter.group !== undefined || hasConditions(filter.labelSelector);
    const counted = filtered(this.repo.createQueryBuilder('t'), byCluster).select('count(*)', 'n').getRawOne<{ n: string }>();
    const rows = filtered(this.repo.createQueryBuilder('t'), true).addSelect('c').orderBy('c.name', 'ASC').limit(limit).offset(offset).getMany();
    const [page, total] = await Promise.all([rows, counted]);
    return [page, Number(total?.n ?? 0)];
  }

  /** Target counts by phase for each of the given projects. */
  async phaseCounts(projectIds: string[]): Promise<Map<string, Record<string, number>>> {
    const out = new Map<string, Record<string, number>>();
    if (projectIds.length === 0) return out;
    const rows: Array<{ project_id: string; phase: string; n: string | number }> = await this.repo
      .createQueryBuilder('t')
      .select('t.project_id', 'project_id')
      .addSelect('t.phase', 'phase')
      .addSelect('count(*)', 'n')
      .where('t.project_id IN (:...ids)', { ids: projectIds })
      .groupBy('t.project_id')
      .addGroupBy('t.phase')
      .getRawMany();
    for (const r of rows) {
      const counts = out.get(r.project_id) ?? {};
      counts[r.phase] = Number(r.n);
      out.set(r.project_id, counts);
    }
    return out;
  }

  /** Adds the missing (project, cluster) pairs; existing ones are left as they are. */
  async insertMissing(rows: Array<{ projectId: string; clusterId: string; generation: number; phase: TargetPhase; conditions?: Condition[] }>): Promise<void> {
    if (rows.length === 0) return;
    try {
      await this.repo.createQueryBuilder().insert().into(TargetEntity).values(rows).orIgnore().execute();
    } catch (err) {
      // a concurrent request deleted the Project or the cluster between our read and this write
      if (isForeignKeyViolation(err)) throw new ReferenceGoneError('the Project or cluster of a new Target was deleted meanwhile; try again', { cause: err });
      throw err;
    }
  }

  async deleteByIds(ids: string[]): Promise<void> {
    if (ids.length > 0) await this.repo.delete({ id: In(ids) });
  }

  /** Deletes a Target whose lease `lease` still holds (fenced by its epoch); false when it was lost. */
  async deleteLeased(lease: { targetId: string; owner: string; epoch: number }): Promise<boolean> {
    const res = await this.repo.delete({ id: lease.targetId, leaseOwner: lease.owner, leaseEpoch: lease.epoch });
    return (res.affected ?? 0) === 1;
  }

  /** A new generation makes every Target due now. */
  async setGeneration(projectId: string, generation: number): Promise<void> {
    await this.repo.update({ projectId }, { generation, nextRunAt: () => 'now()' });
  }

  async setPhaseForProject(projectId: string, phase: TargetPhase): Promise<void> {
    await this.repo.update({ projectId }, { phase });
  }

  /**
   * Schedules the targets to run now (database time, as leases use). `manual`
   * marks the request so the run records it as its trigger, and a request made
   * during a run makes the Target run again after it.
   */
  async requestRun(projectId: string, clusterId: string | undefined, options: { manual: boolean }): Promise<number> {
    const res = await this.repo.update(clusterId ? { projectId, clusterId } : { projectId }, {
      nextRunAt: () => 'now()',
      ...(options.manual ? { reconcileRequestedAt: () => 'now()' } : {}),
    });
    return res.affected ?? 0;
  }

  /**
   * Moves the given Targets to `revision` (a new digest, a rollout wave
   * opening): each is due now unless it already applied that revision, read
   * from the row itself, so a Target that has just finished on it is never
   * made due again by a decision taken on a stale read. A Target in flight
   * keeps the request in `advance_to_revision`: if its run applied another
   * revision (pinned while its wave was closed), it runs again at once.
   */
  async advanceTo(ids: string[], revision: string): Promise<void> {
    if (ids.length === 0) return;
    await this.repo
      .createQueryBuilder()
      .update(TargetEntity)
      .set({ nextRunAt: () => 'LEAST(next_run_at, now())', advanceToRevision: revision })
      .where('id IN (:...ids)', { ids })
      .andWhere('last_applied_revision IS DISTINCT FROM :revision', { revision })
      .execute();
  }

  /** Number of Targets on each of the given clusters. */
  async countsForClusters(clusterIds: string[]): Promise<Map<string, number>> {
    if (clusterIds.length === 0) return new Map();
    const rows: Array<{ cluster_id: string; n: string | number }> = await this.repo
      .createQueryBuilder('t')
      .select('t.cluster_id', 'cluster_id')
      .addSelect('count(*)', 'n')
      .where('t.cluster_id IN (:...ids)', { ids: clusterIds })
      .groupBy('t.cluster_id')
      .getRawMany();
    return new Map(rows.map((r) => [r.cluster_id, Number(r.n)]));
  }
}
