import { Injectable } from '@nestjs/common';
import { DataSource, type Repository } from 'typeorm';
import { EventEntity, RunEntity } from '../database/entities';

/** Runs and events: what happened, newest first. */
@Injectable()
export class HistoryRepository {
  private readonly runs: Repository<RunEntity>;
  private readonly events: Repository<EventEntity>;

  constructor(ds: DataSource) {
    this.runs = ds.getRepository(RunEntity);
    this.events = ds.getRepository(EventEntity);
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

  async recordEvent(row: Pick<EventEntity, 'projectId' | 'clusterName' | 'type' | 'reason' | 'message'>): Promise<void> {
    await this.events.insert(row);
  }
}
