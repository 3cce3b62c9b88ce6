import type { EntityManager } from 'typeorm';
import type { LabelSelector } from '../database/entities';
import { countedStateSql, type FleetState, targetStateSql } from '../fleet/fleet-state';
import type { TenantReach } from '../tenancy/tenant-reach';
import { destinationsCondition } from './destinations-sql';
import { labelSelectorConditions, variesInShape } from './label-selector-sql';
import type { ListTotals } from './list-totals';
import { isoTime, type ListAnswer, MEMBERSHIP_ROW, membershipTotal, queryPrepared, SqlParams, totalOf, whereAll } from './sql';

/** Target counts of one cluster group. */
export interface GroupSummaryRow {
  group: string;
  clusters: number;
  unreachable: number;
  /** Targets by state; states without Targets are absent */
  states: Partial<Record<FleetState, number>>;
}

export interface FleetSummaryRows {
  projects: number;
  groups: GroupSummaryRow[];
}

/** Narrows the clusters (rows) of the matrix. */
export interface MatrixFilter {
  /** part of the cluster name */
  name?: string;
  group?: string;
  labelSelector?: LabelSelector;
}

export interface MatrixCellRow {
  state: FleetState;
  revision: string | null;
}

export interface MatrixRow {
  name: string;
  group: string;
  mode: string;
  reachable: boolean | null;
  lastCheckedAt: string | null;
  labels: Record<string, string>;
  /** by Project name; a Project that does not target the cluster is absent */
  cells: Record<string, MatrixCellRow>;
}

export interface MatrixRows {
  total: number;
  projects: string[];
  rows: MatrixRow[];
}

/** `%` and `_` are LIKE's wildcards; a name filter means them literally. */
function likeContaining(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

/** The fleet-wide reads of the status page: each one statement, whatever the fleet's size. */
export class FleetRepository {
  /** `totals`: where this replica remembers list totals; without it every matrix counts its clusters */
  constructor(
    private readonly db: EntityManager,
    private readonly totals?: ListTotals,
  ) {}

  /**
   * Clusters, unreachable clusters and Targets by state, per cluster group,
   * and the number of Projects: read from the counters the database keeps
   * (target_counts per Project, cluster_group_counts), so the cost does not
   * grow with the fleet. `reach`: a tenant member's, whose Target counts are
   * the sum over its tenants' Projects' counter rows, and whose clusters are
   * those its destinations hold (counted, as no counter is kept per tenant).
   */
  async summary(reach?: TenantReach): Promise<FleetSummaryRows> {
    const params = new SqlParams();
    const projectsOf = reach ? `WHERE p.tenant = ANY(${params.add(reach.tenants)})` : '';
    const countsOf = reach ? `WHERE tc.project_id IN (SELECT p.id FROM projects p ${projectsOf})` : '';
    const groups = reach
      ? `SELECT c.group_name AS grp, count(*)::int AS clusters, (count(*) FILTER (WHERE c.reachable IS false))::int AS unreachable
          FROM clusters c WHERE ${destinationsCondition('c', reach.destinations, params)} GROUP BY 1`
      : `SELECT group_name AS grp, clusters, unreachable FROM cluster_group_counts WHERE clusters > 0`;
    const rows = await queryPrepared<GroupSummaryRow & { projects: number }>(this.db, {
      text: `WITH states AS (
          SELECT tc.cluster_group AS grp, ${countedStateSql('tc')} AS state, sum(tc.n)::int AS n
          FROM target_counts tc ${countsOf} GROUP BY 1, 2 HAVING sum(tc.n) > 0),
        groups AS (${groups})
        SELECT (SELECT count(*)::int FROM projects p ${projectsOf}) AS projects, g.grp AS "group", g.clusters, g.unreachable,
          COALESCE(jsonb_object_agg(s.state, s.n) FILTER (WHERE s.state IS NOT NULL), '{}') AS states
        FROM (SELECT 1) AS one
        LEFT JOIN groups g ON true
        LEFT JOIN states s ON s.grp = g.grp
        GROUP BY g.grp, g.clusters, g.unreachable
        ORDER BY g.grp`,
      values: params.values,
    }, { prepare: !reach });
    const projects = rows[0]?.projects ?? 0;
    return { projects, groups: rows.filter((r) => r.group !== null).map(({ projects: _p, ...group }) => group) };
  }

  /**
   * One page of clusters (ordered by group, then name) with the state of
   * each Project on them, the first `projectLimit` Projects by name as the
   * columns, and how many clusters the filter matches. The page is chosen
   * before any cell is computed (rows skipped by OFFSET cost no cells), and
   * the total is reused while the membership version holds (ListTotals).
   */
  async matrix(filter: MatrixFilter, page: { limit: number; offset: number; projectLimit: number }, reach?: TenantReach): Promise<MatrixRows> {
    const params = new SqlParams();
    const conditions: string[] = [];
    if (reach) conditions.push(destinationsCondition('c', reach.destinations, params));
    const projectsOf = reach ? `WHERE tenant = ANY(${params.add(reach.tenants)})` : '';
    if (filter.name) conditions.push(`c.name LIKE ${params.add(likeContaining(filter.name))}`);
    if (filter.group) conditions.push(`c.group_name = ${params.add(filter.group)}`);
    conditions.push(...labelSelectorConditions('c.labels', filter.labelSelector, params));
    const where = whereAll(conditions);
    const key = `matrix ${JSON.stringify(params.values)}`;
    const sent = this.totals?.lookup(key);
    const rows = await queryPrepared<MatrixRow & ListAnswer & { projects: string[] }>(
      this.db,
      {
        text: `WITH cols AS (SELECT id, name FROM projects ${projectsOf} ORDER BY name LIMIT ${params.add(page.projectLimit)})
          SELECT lv.version::text AS "listVersion", n.total, (SELECT COALESCE(jsonb_agg(name ORDER BY name), '[]') FROM cols) AS projects, r.*
          FROM ${membershipTotal(`SELECT count(*) FROM clusters c ${where}`, params.add(sent?.version ?? null))}
          LEFT JOIN LATERAL (
            SELECT c.name, c.group_name AS "group", c.mode, c.reachable, ${isoTime('c.last_checked_at')} AS "lastCheckedAt", c.labels,
              (SELECT COALESCE(jsonb_object_agg(cols.name, jsonb_build_object('state', ${targetStateSql('t')}, 'revision', t.last_applied_revision)), '{}')
                FROM targets t JOIN cols ON cols.id = t.project_id WHERE t.cluster_id = c.id) AS cells
            FROM (SELECT c.* FROM clusters c ${where} ORDER BY c.group_name, c.name LIMIT ${params.add(page.limit)} OFFSET ${params.add(page.offset)}) AS c) AS r ON true
          WHERE ${MEMBERSHIP_ROW}
          ORDER BY r."group", r.name`,
        values: params.values,
      },
      // filtered by name or labels, the plan depends on how many clusters match: PostgreSQL chooses per statement
      { prepare: !variesInShape(filter.labelSelector) && !reach, planOnce: !filter.name && !filter.labelSelector },
    );
    const first = rows[0];
    return {
      total: totalOf(this.totals, key, sent, first),
      projects: first.projects,
      rows: first.name === null ? [] : rows.map(({ total: _t, listVersion: _v, projects: _p, ...row }) => row),
    };
  }

  /**
   * A mark that changes whenever a Target, Project, cluster or agent link row is written,
   * added or removed: the row count and the newest writing transaction id
   * (xmin) of each table. The scheduler writes Targets with plain UPDATEs
   * that leave updated_at alone; every write changes xmin. Read by the live
   * stream once per tick for all its subscribers, from the database, so
   * writes by other hub replicas count too. (A lease renewal counts as a
   * change: the page then reloads what it shows, a little more often.)
   */
  async changeMark(reach?: TenantReach): Promise<string> {
    const params = new SqlParams();
    const mark = (rows: string) => `(SELECT concat(count(*), '/', max(x.xmin::text::bigint)) FROM ${rows})`;
    // a member hears of changes to what it may see only: its tenants' rows and the clusters of their destinations
    const tenants = reach ? params.add(reach.tenants) : '';
    const marks = reach
      ? [
          mark(`targets x JOIN projects p ON p.id = x.project_id WHERE p.tenant = ANY(${tenants})`),
          mark(`projects x WHERE x.tenant = ANY(${tenants})`),
          mark(`clusters x WHERE ${destinationsCondition('x', reach.destinations, params)}`),
          mark(`agent_links x JOIN clusters c ON c.id = x.cluster_id WHERE ${destinationsCondition('c', reach.destinations, params)}`),
        ]
      : [mark('targets x'), mark('projects x'), mark('clusters x'), mark('agent_links x')];
    const rows = await queryPrepared<{ mark: string }>(this.db, { text: `SELECT concat_ws(' ', ${marks.join(', ')}) AS mark`, values: params.values }, { prepare: !reach });
    return rows[0].mark;
  }
}
