import type { EntityManager, Repository } from 'typeorm';
import { EventEntity, RunEntity } from '../database/entities';

/** Runs and events: what happened, newest first. */
export class HistoryRepository {
  private readonly runs: Repository<RunEntity>;
  private readonly events: Repository<EventEntity>;

  constructor(db: EntityManager) {
    this.runs = db.getRepository(RunEntity);
    this.events = db.getRepository(EventEntity);
  }

  runsForTarget(targetId: string, limit: number, offset: number): Promise<[RunEntity[], number]> {
    return this.runs.findAndCount({ where: { targetId }, order: { startedAt: 'DESC', id: 'DESC' }, take: limit, skip: offset });
  }

  insertRun(row: Partial<RunEntity>): Promise<RunEntity> {
    return this.runs.save(this.runs.create(row));
  }

  eventsForProject(projectId: string, clusterName: string | undefined, limit: number, offset: number): Promise<[EventEntity[], number]> {
    return this.events.findAndCount({
      where: clusterName ? { projectId, clusterName } : { projectId },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
      skip: offset,
    });
  }

  /** Writes one event row; EventsService is the way events leave the hub, this is only its storage. */
  async recordEvent(row: Pick<EventEntity, 'projectId' | 'clusterName' | 'type' | 'reason' | 'message'> & { createdAt?: Date }): Promise<void> {
    await this.events.insert(row);
  }
}
