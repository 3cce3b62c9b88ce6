import { type EntityManager, In, type Repository } from 'typeorm';
import { AlreadyExistsError } from '../common/errors';
import { ClusterEntity } from '../database/entities';
import type { LabelSelector } from '../database/entities';
import type { TenantReach } from '../tenancy/tenant-reach';
import { isUniqueViolation } from './database-errors';
import { destinationsCondition } from './destinations-sql';
import { labelSelectorConditions, variesInShape } from './label-selector-sql';
import type { ListTotals } from './list-totals';
import { isoTime, type ListAnswer, MEMBERSHIP_ROW, membershipTotal, queryPrepared, SqlParams, totalOf, whereAll } from './sql';

export interface ClusterFilter {
  group?: string;
  mode?: string;
  labelSelector?: LabelSelector;
  /** a tenant member's: only clusters in its destinations, counting only its own Targets; undefined: all */
  reach?: TenantReach;
}

/** Another registration of a cluster's API server. */
export interface ClusterTwin {
  name: string;
  group: string;
  labels: Record<string, string>;
}

/**
 * What the API shows of a cluster, read in one statement with its credential
 * summary, Target count, twins and agent link. A tenant member's view counts
 * only its tenants' Targets; which twins it may name is the service's rule.
 */
export interface ClusterViewRow {
  id: string;
  name: string;
  groupName: string;
  labels: Record<string, string>;
  mode: ClusterEntity['mode'];
  server: string | null;
  insecureSkipTlsVerify: boolean;
  hasCaData: boolean;
  credentialKind: string | null;
  credentialFingerprint: string | null;
  reachable: boolean | null;
  serverVersion: string | null;
  lastCheckedAt: string | null;
  statusMessage: string | null;
  apiServerIdentity: string | null;
  /** other clusters registered with the same API server identity, by name, with what decides whether a member may see them */
  twins: ClusterTwin[] | null;
  targets: number;
  createdAt: string;
  updatedAt: string;
  /** the agent link's state (agent clusters); false and null when the agent never connected */
  agentConnected: boolean;
  agentSince: string | null;
  agentVersion: string | null;
  agentLastHeartbeat: string | null;
  agentRegistered: boolean;
}

export class ClustersRepository {
  private readonly repo: Repository<ClusterEntity>;

  /** `totals`: where this replica remembers list totals; without it every list counts */
  constructor(
    private readonly db: EntityManager,
    private readonly totals?: ListTotals,
  ) {
    this.repo = db.getRepository(ClusterEntity);
  }

  /** One page of views and the number of clusters the filter matches, in one round trip. */
  async viewPage(filter: ClusterFilter, limit: number, offset: number): Promise<{ rows: ClusterViewRow[]; total: number }> {
    const params = new SqlParams();
    const where = whereAll(clusterConditions(filter, params));
    const key = `clusters ${JSON.stringify(params.values)}`;
    const sent = this.totals?.lookup(key);
    // one row even when the page is empty, so the total always comes back
    const rows = await queryPrepared<ClusterViewRow & ListAnswer>(
      this.db,
      {
        text: `SELECT lv.version::text AS "listVersion", n.total, v.*
          FROM ${membershipTotal(`SELECT count(*) FROM clusters c ${where}`, params.add(sent?.version ?? null))}
          LEFT JOIN LATERAL (
            ${viewSql(`SELECT c.* FROM clusters c ${where} ORDER BY c.name LIMIT ${params.add(limit)} OFFSET ${params.add(offset)}`, params, filter.reach?.tenants)}
          ) AS v ON true
          WHERE ${MEMBERSHIP_ROW} ORDER BY v.name`,
        values: params.values,
      },
      // without a selector the plan does not depend on the values (a label's selectivity does)
      { prepare: !variesInShape(filter.labelSelector) && !filter.reach, planOnce: !filter.labelSelector },
    );
    const total = totalOf(this.totals, key, sent, rows[0]);
    return { rows: rows[0].name === null ? [] : rows, total };
  }

  /**
   * `reach`: a tenant member's (the cluster is read whether or not its
   * destinations hold it); undefined: all. Prepared either way: its shape
   * never varies, and planning cost a member's read more than running it.
   */
  async viewByName(name: string, reach?: TenantReach): Promise<ClusterViewRow | undefined> {
    const params = new SqlParams();
    const text = viewSql(`SELECT c.* FROM clusters c WHERE c.name = ${params.add(name)}`, params, reach?.tenants);
    const rows = await queryPrepared<ClusterViewRow>(this.db, { text, values: params.values });
    return rows[0];
  }

  findByName(name: string): Promise<ClusterEntity | null> {
    return this.repo.findOneBy({ name });
  }

  /** Clusters whose API server has this identity (the kube-system namespace uid). */
  withIdentity(identity: string): Promise<ClusterEntity[]> {
    return this.repo.findBy({ apiServerIdentity: identity });
  }

  findByIds(ids: readonly string[]): Promise<ClusterEntity[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.repo.findBy({ id: In([...ids]) });
  }

  findById(id: string): Promise<ClusterEntity | null> {
    return this.repo.findOneBy({ id });
  }

  existsByName(name: string): Promise<boolean> {
    return this.repo.existsBy({ name });
  }

  /** One cluster, with only what target selection needs. */
  forSelection(id: string): Promise<Pick<ClusterEntity, 'id' | 'name' | 'groupName' | 'labels' | 'mode'> | null> {
    return this.repo.findOne({ select: { id: true, name: true, groupName: true, labels: true, mode: true }, where: { id } });
  }

  /** Every cluster, with only what target selection needs. */
  allForSelection(): Promise<Array<Pick<ClusterEntity, 'id' | 'name' | 'groupName' | 'labels' | 'mode'>>> {
    return this.repo.find({ select: { id: true, name: true, groupName: true, labels: true, mode: true }, order: { name: 'ASC' } });
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

function clusterConditions(filter: ClusterFilter, params: SqlParams): string[] {
  const out: string[] = [];
  if (filter.group) out.push(`c.group_name = ${params.add(filter.group)}`);
  if (filter.mode) out.push(`c.mode = ${params.add(filter.mode)}`);
  if (filter.reach) out.push(destinationsCondition('c', filter.reach.destinations, params));
  return [...out, ...labelSelectorConditions('c.labels', filter.labelSelector, params)];
}

/**
 * The view of the clusters `rows` yields (a query of whole rows): the page is
 * chosen first, so rows skipped by OFFSET cost no subqueries or formatting.
 * `tenants`: a member's, whose count takes only their Targets. Its shape
 * never depends on the member's destinations: twins come with their group
 * and labels, for the service to keep the member's.
 */
function viewSql(rows: string, params: SqlParams, tenants: readonly string[] | undefined): string {
  const targets = tenants
    ? `SELECT count(*) FROM targets t WHERE t.cluster_id = c.id AND t.project_id = ANY(ARRAY(SELECT p.id FROM projects p WHERE p.tenant = ANY(${params.add(tenants)})))`
    : 'SELECT count(*) FROM targets t WHERE t.cluster_id = c.id';
  return `SELECT c.id, c.name, c.group_name AS "groupName", c.labels, c.mode, c.server,
      c.insecure_skip_tls_verify AS "insecureSkipTlsVerify", c.ca_data IS NOT NULL AS "hasCaData",
      cr.kind AS "credentialKind", cr.fingerprint AS "credentialFingerprint",
      c.reachable, c.server_version AS "serverVersion", ${isoTime('c.last_checked_at')} AS "lastCheckedAt",
      c.status_message AS "statusMessage", c.api_server_identity AS "apiServerIdentity",
      (SELECT json_agg(json_build_object('name', o.name, 'group', o.group_name, 'labels', o.labels) ORDER BY o.name)
        FROM clusters o WHERE o.api_server_identity = c.api_server_identity AND o.id <> c.id) AS twins,
      (${targets})::int AS targets,
      ${isoTime('c.created_at')} AS "createdAt", ${isoTime('c.updated_at')} AS "updatedAt",
      coalesce(al.connected, false) AS "agentConnected", ${isoTime('al.status_since')} AS "agentSince", al.agent_version AS "agentVersion",
      ${isoTime('al.last_heartbeat_at')} AS "agentLastHeartbeat", al.cert_fingerprint IS NOT NULL AS "agentRegistered"
    FROM (${rows}) AS c LEFT JOIN credentials cr ON cr.id = c.credential_id
      LEFT JOIN agent_links al ON al.cluster_id = c.id`;
}
