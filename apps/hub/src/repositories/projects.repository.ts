import { type EntityManager, In, type Repository } from 'typeorm';
import type { BootstrapRole } from '@flotilla/engine';
import { AlreadyExistsError } from '../common/errors';
import { ProjectEntity } from '../database/entities';
import type { OutsideDestinations, TargetRemoval, TargetSelector } from '../database/entities';
import type { RolloutOnFailure } from '../rollout/on-failure';
import type { RolloutAction } from '../rollout/rollout-actions';
import type { WindowSpec } from '../rollout/rollout-windows';
import type { WaveSpec } from '../rollout/wave-spec';
import type { AnnouncedWaves } from '../rollout/wave-transitions';
import { isUniqueViolation } from './database-errors';
import { isoTime, queryPrepared, returnedRows, SqlParams, whereAll } from './sql';

/**
 * What the API shows of a Project, read in one statement with its credential summary and its Target counts
 * by phase (from target_counts, kept by the database: no Target is counted per request).
 */
export interface ProjectViewRow {
  name: string;
  namespace: string;
  tenant: string;
  /** clusters the selector matches that lie outside the tenant's destinations */
  outsideDestinations: OutsideDestinations | null;
  sourceRepository: string;
  sourceTag: string;
  sourcePath: string;
  serviceAccountName: string;
  targetSelector: TargetSelector;
  rolloutGroups: string[];
  rolloutWaves: WaveSpec[];
  rolloutOnFailure: RolloutOnFailure;
  rolloutActions: RolloutAction[];
  rolloutWindows: WindowSpec[];
  sourceDigest: string | null;
  intervalSeconds: number;
  suspend: boolean;
  annotations: Record<string, string>;
  credentialKind: string | null;
  credentialFingerprint: string | null;
  cdeventsSink: string | null;
  /** the sink header's name only */
  cdeventsSinkHeader: string | null;
  /** the chat webhook's scheme and host only */
  notificationWebhook: string | null;
  targetRemoval: TargetRemoval;
  overwriteOwnership: boolean;
  bootstrapRole: BootstrapRole | null;
  generation: number;
  deleting: boolean;
  /** RolloutWaiting conditions of its Targets, with their cluster's group */
  held: Array<{ group: string; message: string; since: string }>;
  /** Target counts by phase; phases without Targets are absent */
  phases: Record<string, number>;
  /** of the Ready Targets, those whose applied objects are not healthy */
  unhealthy: number;
  createdAt: string;
  updatedAt: string;
}

export class ProjectsRepository {
  private readonly repo: Repository<ProjectEntity>;

  constructor(private readonly db: EntityManager) {
    this.repo = db.getRepository(ProjectEntity);
  }

  /** One page of views and the number of Projects the filter matches, in one round trip. */
  /** `tenants`: only Projects of these (a member's view); undefined: all. */
  async viewPage(filter: { suspended?: boolean; tenants?: readonly string[] }, limit: number, offset: number): Promise<{ rows: ProjectViewRow[]; total: number }> {
    const params = new SqlParams();
    const where = whereAll([
      ...(filter.suspended === undefined ? [] : [`p.suspend = ${params.add(filter.suspended)}`]),
      ...(filter.tenants === undefined ? [] : [`p.tenant = ANY(${params.add([...filter.tenants])})`]),
    ]);
    // one row even when the page is empty, so the total always comes back
    const rows = await queryPrepared<ProjectViewRow & { total: number }>(this.db, {
      text: `SELECT (SELECT count(*) FROM projects p ${where})::int AS total, v.*
       FROM (SELECT 1) AS one LEFT JOIN LATERAL (
         ${projectView(`SELECT p.* FROM projects p ${where} ORDER BY p.name LIMIT ${params.add(limit)} OFFSET ${params.add(offset)}`)}
       ) AS v ON true ORDER BY v.name`,
      values: params.values,
    });
    return { rows: rows[0].name === null ? [] : rows, total: rows[0].total };
  }

  async viewByName(name: string): Promise<ProjectViewRow | undefined> {
    const rows = await queryPrepared<ProjectViewRow>(this.db, { text: projectView('SELECT p.* FROM projects p WHERE p.name = $1'), values: [name] });
    return rows[0];
  }

  async tenantOf(name: string): Promise<string | undefined> {
    return (await this.repo.findOne({ select: { tenant: true }, where: { name } }))?.tenant;
  }

  findByName(name: string): Promise<ProjectEntity | null> {
    return this.repo.findOneBy({ name });
  }

  findByIds(ids: readonly string[]): Promise<ProjectEntity[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.repo.findBy({ id: In([...ids]) });
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

  ofTenant(tenant: string): Promise<ProjectEntity[]> {
    return this.repo.find({ where: { tenant }, order: { name: 'ASC' } });
  }

  all(): Promise<ProjectEntity[]> {
    return this.repo.find({ order: { name: 'ASC' } });
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

  /**
   * Stores `next` as the Project's announced wave states if they are still
   * `expected`: of two passes or replicas that saw the same change, one wins
   * (the row lock orders them; the second finds the first's states).
   */
  async announceWaves(id: string, expected: AnnouncedWaves | null, next: AnnouncedWaves): Promise<boolean> {
    const res: unknown = await this.db.query(
      `UPDATE projects SET rollout_wave_states = $2::jsonb WHERE id = $1 AND rollout_wave_states IS NOT DISTINCT FROM $3::jsonb RETURNING id`,
      [id, JSON.stringify(next), expected === null ? null : JSON.stringify(expected)],
    );
    return returnedRows(res).length === 1;
  }
}

/** The view of the Projects `rows` yields (whole rows), chosen before any per-row work is done. */
function projectView(rows: string): string {
  return `SELECT p.name, p.namespace, p.tenant, p.outside_destinations AS "outsideDestinations", p.source_repository AS "sourceRepository", p.source_tag AS "sourceTag",
    p.source_path AS "sourcePath", p.service_account_name AS "serviceAccountName", p.target_selector AS "targetSelector",
    p.rollout_groups AS "rolloutGroups", p.rollout_waves AS "rolloutWaves", p.rollout_on_failure AS "rolloutOnFailure", p.rollout_actions AS "rolloutActions", p.rollout_windows AS "rolloutWindows", p.source_digest AS "sourceDigest", p.interval_seconds AS "intervalSeconds", p.suspend, p.annotations,
    cr.kind AS "credentialKind", cr.fingerprint AS "credentialFingerprint", p.cdevents_sink AS "cdeventsSink", p.cdevents_sink_header->>'name' AS "cdeventsSinkHeader", p.notification_webhook->>'shown' AS "notificationWebhook",
    p.target_removal AS "targetRemoval", p.overwrite_ownership AS "overwriteOwnership", p.bootstrap_role AS "bootstrapRole", p.generation, p.deletion_requested_at IS NOT NULL AS deleting,
    counted.phases, counted.unhealthy,
    COALESCE((SELECT jsonb_agg(jsonb_build_object('group', c.group_name, 'message', cond->>'message', 'since', cond->>'lastTransitionTime'))
      FROM targets t JOIN clusters c ON c.id = t.cluster_id CROSS JOIN LATERAL jsonb_array_elements(t.conditions) AS cond
      WHERE t.project_id = p.id AND t.removal_requested_at IS NULL AND t.conditions @> '[{"reason": "RolloutWaiting"}]' AND cond->>'reason' = 'RolloutWaiting'), '[]') AS held,
    ${isoTime('p.created_at')} AS "createdAt", ${isoTime('p.updated_at')} AS "updatedAt"
  FROM (${rows}) AS p LEFT JOIN credentials cr ON cr.id = p.registry_credential_id
  -- one pass over the Project's counters for both: Targets by phase, and the Ready ones not healthy
  CROSS JOIN LATERAL (SELECT COALESCE(jsonb_object_agg(x.phase, x.n) FILTER (WHERE x.n > 0), '{}') AS phases, COALESCE(sum(x.unhealthy), 0)::int AS unhealthy
    FROM (SELECT tc.phase, sum(tc.n) AS n, sum(tc.n) FILTER (WHERE tc.unhealthy) AS unhealthy FROM target_counts tc WHERE tc.project_id = p.id GROUP BY tc.phase) x) AS counted`;
}
