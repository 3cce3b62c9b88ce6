import type { EntityManager, ObjectLiteral, Repository, SelectQueryBuilder } from 'typeorm';
import type { Cursor } from '../common/cursor';
import { EventEntity, RunEntity } from '../database/entities';

/** Runs and events: what happened, newest first. */
export class HistoryRepository {
  private readonly runs: Repository<RunEntity>;
  private readonly events: Repository<EventEntity>;

  constructor(db: EntityManager) {
    this.runs = db.getRepository(RunEntity);
    this.events = db.getRepository(EventEntity);
  }

  /** A page of a Target's runs, newest first, after `cursor`; `next` is where the following page starts. */
  runsForTarget(targetId: string, limit: number, cursor: Cursor | undefined): Promise<{ rows: RunEntity[]; next: Cursor | null }> {
    const qb = this.runs.createQueryBuilder('r').where('r.target_id = :targetId', { targetId });
    return newestFirst(qb, 'r', 'started_at', limit, cursor);
  }

  insertRun(row: Partial<RunEntity>): Promise<RunEntity> {
    return this.runs.save(this.runs.create(row));
  }

  /** A page of a Project's events (on one cluster, if given), newest first, after `cursor`. */
  eventsForProject(projectId: string, clusterName: string | undefined, limit: number, cursor: Cursor | undefined): Promise<{ rows: EventEntity[]; next: Cursor | null }> {
    const qb = this.events.createQueryBuilder('e').where('e.project_id = :projectId', { projectId });
    if (clusterName) qb.andWhere('e.cluster_name = :clusterName', { clusterName });
    return newestFirst(qb, 'e', 'created_at', limit, cursor);
  }

  /** Writes one event row; EventsService is the way events leave the hub, this is only its storage. */
  async recordEvent(row: Pick<EventEntity, 'projectId' | 'clusterName' | 'type' | 'reason' | 'message'> & { createdAt?: Date }): Promise<void> {
    await this.events.insert(row);
  }
}

/**
 * Keyset paging on (time, id) descending: one row more than asked tells
 * whether a next page exists; its cursor carries the time in microseconds,
 * so rows within one millisecond are neither skipped nor repeated.
 */
async function newestFirst<T extends ObjectLiteral>(qb: SelectQueryBuilder<T>, alias: string, timeColumn: string, limit: number, cursor: Cursor | undefined): Promise<{ rows: T[]; next: Cursor | null }> {
  if (cursor) {
    qb.andWhere(`(${alias}.${timeColumn}, ${alias}.id) < (timestamptz 'epoch' + CAST(:cursorMicros AS bigint) * interval '1 microsecond', CAST(:cursorId AS uuid))`, {
      cursorMicros: cursor.micros,
      cursorId: cursor.id,
    });
  }
  const { entities, raw } = await qb
    // integer microseconds: exact, where a JavaScript Date would keep only milliseconds
    .addSelect(`CAST(extract(epoch FROM ${alias}.${timeColumn}) * 1000000 AS bigint)`, 'cursor_micros')
    .orderBy(`${alias}.${timeColumn}`, 'DESC')
    .addOrderBy(`${alias}.id`, 'DESC')
    .limit(limit + 1)
    .getRawAndEntities();
  if (entities.length <= limit) return { rows: entities, next: null };
  const last = raw[limit - 1] as Record<string, string>;
  return { rows: entities.slice(0, limit), next: { micros: String(last.cursor_micros), id: last[`${alias}_id`] } };
}
