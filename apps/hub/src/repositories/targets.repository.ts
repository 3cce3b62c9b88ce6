import { type EntityManager, In, type Repository } from 'typeorm';
import { ReferenceGoneError } from '../common/errors';
import { TargetEntity } from '../database/entities';
import type { LabelSelector, TargetPhase } from '../database/entities';
import type { Condition, ReportComponent } from '@flotilla/engine';
import { isForeignKeyViolation } from './database-errors';
import { hasConditions, labelSelectorConditions, variesInShape } from './label-selector-sql';
import type { ListTotals } from './list-totals';
import { isoTime, type ListAnswer, MEMBERSHIP_ROW, membershipTotal, queryPrepared, SqlParams, totalOf, whereAll } from './sql';

/** Narrows a Project's Targets by their phase or their cluster's group and labels. */
export interface TargetFilter {
  phase?: string;
  group?: string;
  labelSelector?: LabelSelector;
}

/** The Targets a new revision ($2) of a Project without waves ($1) advances: all but the Suspended, the Deleting and those on it. */
export const PROJECT_ADVANCES = `project_id = $1 AND last_applied_revision IS DISTINCT FROM $2 AND phase NOT IN ('Suspended', 'Deleting')`;

// Any fixed 64-bit number names the lock; distinct from the migration lock.
const MEMBERSHIP_LOCK = '7380676954236969314';

/** What the API shows of a Target: the same fields as its response view. */
export interface TargetViewRow {
  cluster: string;
  clusterGroup: string;
  phase: TargetPhase;
  conditions: Condition[];
  generation: number;
  observedGeneration: number | null;
  lastAppliedRevision: string | null;
  components: ReportComponent[];
  namespaces: string[];
  nextRunAt: string | null;
  attempt: number;
  removing: boolean;
  /** agent clusters whose agent is not connected: the status is the last one reported, nobody reports now */
  stale: boolean;
  /** when that agent disconnected (null: it never connected) */
  staleSince: string | null;
}

/** Target rows with their cluster's name and group, for the view to pick from. */
// t.cluster_name is the cluster's name, copied by a trigger (migration 1764880000000)
const WITH_CLUSTER = `SELECT t.*, c.group_name AS cluster_group, c.mode AS cluster_mode,
    (c.mode = 'agent' AND NOT COALESCE(al.connected, false)) AS stale, al.status_since AS stale_since
  FROM targets t JOIN clusters c ON c.id = t.cluster_id LEFT JOIN agent_links al ON al.cluster_id = c.id`;

/** Inserting this many Targets at once refreshes the table's planner statistics. */
const BULK_ANALYZE_ROWS = 1000;

/** The view of the Targets `rows` yields (WITH_CLUSTER rows), chosen before any per-row formatting. */
function targetView(rows: string): string {
  return `SELECT t.cluster_name AS cluster, t.cluster_group AS "clusterGroup", t.phase, t.conditions, t.generation,
      t.observed_generation AS "observedGeneration", t.last_applied_revision AS "lastAppliedRevision",
      t.components, t.namespaces, ${isoTime(`CASE WHEN t.cluster_mode = 'agent' THEN t.agent_next_run_at ELSE t.next_run_at END`)} AS "nextRunAt", t.attempt,
      t.removal_requested_at IS NOT NULL AS removing,
      t.stale, CASE WHEN t.stale THEN ${isoTime('t.stale_since')} END AS "staleSince"
    FROM (${rows}) AS t`;
}

export class TargetsRepository {
  private readonly repo: Repository<TargetEntity>;

  /** `totals`: where this replica remembers list totals; without it every list counts */
  constructor(
    private readonly db: EntityManager,
    private readonly totals?: ListTotals,
  ) {
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

  findByIds(ids: readonly string[]): Promise<TargetEntity[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.repo.findBy({ id: In([...ids]) });
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

  /**
   * One page of a Project's Target views, by Project name, and how many the
   * filter matches, in one round trip; undefined when there is no such Project.
   */
  async viewPage(projectName: string, filter: TargetFilter, limit: number, offset: number): Promise<{ rows: TargetViewRow[]; total: number } | undefined> {
    const params = new SqlParams();
    const conditions = ['t.project_id = p.id'];
    if (filter.phase) conditions.push(`t.phase = ${params.add(filter.phase)}`);
    if (filter.group) conditions.push(`c.group_name = ${params.add(filter.group)}`);
    conditions.push(...labelSelectorConditions('c.labels', filter.labelSelector, params));
    // The count joins clusters only when a filter reads them. Phases change on every run
    // without bumping the membership version, so totals by phase are counted each time.
    const byCluster = filter.group !== undefined || hasConditions(filter.labelSelector);
    const where = whereAll(conditions);
    const totals = filter.phase ? undefined : this.totals;
    const key = `targets ${JSON.stringify([projectName, ...params.values])}`;
    const sent = totals?.lookup(key);
    const rows = await queryPrepared<TargetViewRow & ListAnswer>(
      this.db,
      {
        text: `SELECT lv.version::text AS "listVersion", n.total, v.*
          FROM projects p
          CROSS JOIN ${membershipTotal(`SELECT count(*) FROM targets t ${byCluster ? 'JOIN clusters c ON c.id = t.cluster_id' : ''} ${where}`, params.add(sent?.version ?? null))}
          LEFT JOIN LATERAL (${targetView(`${WITH_CLUSTER} ${where} ORDER BY t.cluster_name LIMIT ${params.add(limit)} OFFSET ${params.add(offset)}`)}) AS v ON true
          WHERE p.name = ${params.add(projectName)} AND ${MEMBERSHIP_ROW}
          ORDER BY v.cluster`,
        values: params.values,
      },
      { prepare: !variesInShape(filter.labelSelector), planOnce: !filter.labelSelector },
    );
    if (rows.length === 0) return undefined;
    const total = totalOf(totals, key, sent, rows[0]);
    return { rows: rows[0].cluster === null ? [] : rows.map(({ total: _total, listVersion: _version, ...view }) => view), total };
  }

  /** The view of the Target of `projectName` on `clusterName`. */
  async viewOf(projectName: string, clusterName: string): Promise<TargetViewRow | undefined> {
    const rows = await queryPrepared<TargetViewRow>(this.db, {
      text: targetView(`${WITH_CLUSTER} JOIN projects p ON p.id = t.project_id WHERE p.name = $1 AND c.name = $2`),
      values: [projectName, clusterName],
    });
    return rows[0];
  }

  /** Adds the missing (project, cluster) pairs; existing ones are left as they are. */
  async insertMissing(rows: Array<{ projectId: string; clusterId: string; generation: number; phase: TargetPhase; conditions?: Condition[] }>): Promise<void> {
    if (rows.length === 0) return;
    try {
      // in cluster order: each insert share-locks its cluster's row, as an agent's (dis)connection locks them at commit
      const ordered = [...rows].sort((a, b) => (a.clusterId < b.clusterId ? -1 : a.clusterId > b.clusterId ? 1 : 0));
      await this.repo.createQueryBuilder().insert().into(TargetEntity).values(ordered).orIgnore().execute();
      // A Project that adds a fleet's Targets at once: statistics now, not at autovacuum's next round (up to a
      // minute): planned on the old ones the scheduler's claims nested loops over every Target (seconds each).
      if (rows.length >= BULK_ANALYZE_ROWS) await this.repo.query('ANALYZE targets');
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

  /** Deletes an agent cluster's Target whose assignment `generation` is still the current one; false otherwise. */
  async deleteAssigned(id: string, generation: number): Promise<boolean> {
    const res = await this.repo.delete({ id, agentGeneration: generation });
    return (res.affected ?? 0) === 1;
  }

  /**
   * Locks the Project's Targets in id order, as the batched run writes do,
   * before the Project's row is deleted: the delete's cascade would otherwise
   * take them in its own order while a batch holding one waits for the
   * Project's row (a run's events reference it).
   */
  async lockForProject(projectId: string): Promise<void> {
    await this.repo.query('SELECT id FROM targets WHERE project_id = $1 ORDER BY id FOR UPDATE', [projectId]);
  }

  /** A new generation makes every Target due now. */
  async setGeneration(projectId: string, generation: number): Promise<void> {
    await this.updateInIdOrder('project_id = $1', [projectId], 'generation = $2, next_run_at = now()', [generation]);
  }

  /** Targets being removed stay Deleting (suspending the Project does not stop their removal). */
  async setPhaseForProject(projectId: string, phase: TargetPhase): Promise<void> {
    await this.updateInIdOrder('project_id = $1 AND removal_requested_at IS NULL', [projectId], 'phase = $2', [phase]);
  }

  /**
   * The cluster left the Project's targets: the Target turns Deleting and is
   * due now, its run deletes the instances there and then the row.
   */
  async requestRemoval(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.updateInIdOrder(`id = ANY(string_to_array($1, ',')::uuid[]) AND removal_requested_at IS NULL`, [ids.join(',')], `removal_requested_at = now(), phase = 'Deleting', next_run_at = now()`, []);
  }

  /**
   * Deletes the Target if it never started a run, so nothing of it can be on
   * the cluster (agent clusters, a Target added a moment ago). The row is
   * locked first: a run starting now either committed its Run row before
   * (the Target stays) or finds the Target gone. Only inside a transaction.
   */
  async deleteIfNeverRun(id: string): Promise<boolean> {
    await this.repo.query('SELECT id FROM targets WHERE id = $1 FOR UPDATE', [id]);
    const res: unknown = await this.repo.query('DELETE FROM targets t WHERE t.id = $1 AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.target_id = t.id) RETURNING t.id', [id]);
    return deletedRows(res) === 1;
  }

  /** The cluster matches the targets again before its instances were deleted: the Target reconciles as before. */
  async cancelRemoval(ids: string[], phase: TargetPhase): Promise<void> {
    if (ids.length === 0) return;
    await this.repo.update({ id: In(ids) }, { removalRequestedAt: null, phase, nextRunAt: () => 'now()' });
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
    await this.updateInIdOrder(`id = ANY(string_to_array($1, ',')::uuid[]) AND last_applied_revision IS DISTINCT FROM $2`, [ids.join(','), revision], 'next_run_at = LEAST(t.next_run_at, now()), advance_to_revision = $2', []);
  }

  /**
   * advanceTo for every Target of a Project without rollout waves (all of
   * them advance but the Suspended, the Deleting and those on `revision`),
   * decided on the rows themselves: no fleet's worth of Targets read first.
   */
  async advanceProject(projectId: string, revision: string): Promise<void> {
    await this.updateInIdOrder(
      PROJECT_ADVANCES,
      [projectId, revision],
      'next_run_at = LEAST(t.next_run_at, now()), advance_to_revision = $2',
      [],
    );
  }

  /**
   * UPDATE of many Targets that locks them in id order first, as the
   * scheduler's batched run writes do: a fleet's Targets in one statement
   * otherwise deadlocked with those batches (seen at 10,000 agents).
   * `where` uses $1…$n of `whereParams`; `set` may use them and the `setParams` after them.
   */
  private async updateInIdOrder(where: string, whereParams: unknown[], set: string, setParams: unknown[]): Promise<void> {
    await this.repo.query(
      `UPDATE targets t SET ${set}, updated_at = CURRENT_TIMESTAMP FROM (SELECT id FROM targets WHERE ${where} ORDER BY id FOR UPDATE) AS l WHERE t.id = l.id`,
      [...whereParams, ...setParams],
    );
  }
}

/** DELETE … RETURNING answers [rows, count] from node-postgres and rows from PGlite. */
function deletedRows(res: unknown): number {
  if (Array.isArray(res) && res.length === 2 && Array.isArray(res[0]) && typeof res[1] === 'number') return res[0].length;
  return Array.isArray(res) ? res.length : 0;
}
