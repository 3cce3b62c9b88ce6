import type { EntityManager, Repository } from 'typeorm';
import type { ReportError, ReportInstance } from '@flotilla/engine';
import type { Cursor } from '../common/cursor';
import { EventEntity, RunEntity } from '../database/entities';
import { isoTime, queryPrepared, SqlParams } from './sql';

/** What the API shows of a run. */
export interface RunViewRow {
  id: string;
  generation: number;
  revision: string | null;
  trigger: RunEntity['trigger'];
  result: RunEntity['result'];
  startedAt: string;
  finishedAt: string | null;
  durationMs: number | null;
  leaseOwner: string | null;
  instances: ReportInstance[];
  error: string | null;
  errors: ReportError[];
}

/** What the API shows of an event. */
export interface EventViewRow {
  cluster: string | null;
  type: EventEntity['type'];
  reason: EventEntity['reason'];
  message: string;
  time: string;
}

/** A page of history, newest first; `next` is where the following page starts, null on the last. */
export interface HistoryPage<T> {
  rows: T[];
  next: Cursor | null;
}

/** One event as stored. */
export type EventRow = Pick<EventEntity, 'projectId' | 'clusterName' | 'type' | 'reason' | 'message'> & { createdAt?: Date };

/** Runs and events: what happened, newest first. */
export class HistoryRepository {
  private readonly runs: Repository<RunEntity>;
  private readonly events: Repository<EventEntity>;

  constructor(private readonly db: EntityManager) {
    this.runs = db.getRepository(RunEntity);
    this.events = db.getRepository(EventEntity);
  }

  /** A page of the runs of the Target of `projectName` on `clusterName`, after `cursor`; undefined when there is no such Target. */
  async runsOfTarget(projectName: string, clusterName: string, limit: number, cursor: Cursor | undefined): Promise<HistoryPage<RunViewRow> | undefined> {
    const params = new SqlParams();
    const from = 'targets t JOIN projects p ON p.id = t.project_id JOIN clusters c ON c.id = t.cluster_id';
    const where = `p.name = ${params.add(projectName)} AND c.name = ${params.add(clusterName)}`;
    const page = `SELECT r.id, r.generation, r.revision, r.trigger, r.result, ${isoTime('r.started_at')} AS "startedAt",
        ${isoTime('r.finished_at')} AS "finishedAt", r.duration_ms AS "durationMs", r.lease_owner AS "leaseOwner",
        r.instances, r.error, r.errors, ${cursorColumns('r', 'started_at')}
      FROM runs r WHERE r.target_id = t.id ${after('r', 'started_at', cursor, params)}
      ORDER BY r.started_at DESC, r.id DESC LIMIT ${params.add(limit + 1)}`;
    return this.newestFirst<RunViewRow>(from, where, page, limit, params);
  }

  insertRun(row: Partial<RunEntity>): Promise<RunEntity> {
    return this.runs.save(this.runs.create(row));
  }

  /** A page of the events of the Project `projectName` (on one cluster, if given), after `cursor`; undefined when there is no such Project. */
  async eventsOfProject(projectName: string, clusterName: string | undefined, limit: number, cursor: Cursor | undefined): Promise<HistoryPage<EventViewRow> | undefined> {
    const params = new SqlParams();
    const where = `p.name = ${params.add(projectName)}`;
    const onCluster = clusterName ? `AND e.cluster_name = ${params.add(clusterName)}` : '';
    const page = `SELECT e.cluster_name AS cluster, e.type, e.reason, e.message, ${isoTime('e.created_at')} AS time, ${cursorColumns('e', 'created_at')}
      FROM events e WHERE e.project_id = p.id ${onCluster} ${after('e', 'created_at', cursor, params)}
      ORDER BY e.created_at DESC, e.id DESC LIMIT ${params.add(limit + 1)}`;
    return this.newestFirst<EventViewRow>('projects p', where, page, limit, params);
  }

  /** Writes one event row; EventsService is the way events leave the hub, this is only its storage. */
  async recordEvent(row: EventRow): Promise<void> {
    await this.events.insert(row);
  }

  /** Writes event rows in one statement (all or none). */
  async recordEvents(rows: EventRow[]): Promise<void> {
    if (rows.length > 0) await this.events.insert(rows);
  }

  /**
   * Keyset paging on (time, id) descending, in one statement with the lookup
   * of the owner (so a missing owner is told from an empty history): one row
   * more than asked tells whether a next page exists.
   */
  private async newestFirst<T extends object>(from: string, where: string, page: string, limit: number, params: SqlParams): Promise<HistoryPage<T> | undefined> {
    const rows = await queryPrepared<T & CursorColumns>(this.db, { text: `SELECT h.* FROM ${from} LEFT JOIN LATERAL (${page}) AS h ON true WHERE ${where}`, values: params.values }, { prepare: true, planOnce: true });
    if (rows.length === 0) return undefined;
    const found = rows[0].cursorId === null ? [] : rows;
    const last = found.length > limit ? found[limit - 1] : undefined;
    const visible = found.slice(0, limit).map(({ cursorMicros: _micros, cursorId: _id, ...view }) => view as unknown as T);
    return { rows: visible, next: last ? { micros: last.cursorMicros!, id: last.cursorId! } : null };
  }
}

interface CursorColumns {
  cursorMicros: string | null;
  cursorId: string | null;
}

/** Where a row stands in the keyset: its time in integer microseconds (exact, where a JavaScript Date keeps milliseconds) and its id. */
function cursorColumns(alias: string, timeColumn: string): string {
  return `CAST(CAST(extract(epoch FROM ${alias}.${timeColumn}) * 1000000 AS bigint) AS text) AS "cursorMicros", ${alias}.id AS "cursorId"`;
}

/** Rows strictly older than the cursor, in (time, id) order. */
function after(alias: string, timeColumn: string, cursor: Cursor | undefined, params: SqlParams): string {
  if (!cursor) return '';
  const micros = params.add(cursor.micros);
  const id = params.add(cursor.id);
  return `AND (${alias}.${timeColumn}, ${alias}.id) < (timestamptz 'epoch' + CAST(${micros} AS bigint) * interval '1 microsecond', CAST(${id} AS uuid))`;
}
