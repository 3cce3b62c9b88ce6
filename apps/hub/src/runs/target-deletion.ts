import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import type { ClusterEntity, ProjectEntity } from '../database/entities';
import { EventsService } from '../events/events.service';
import { HUB_LOGGER } from '../logging/logging.module';
import { deletesInstances } from '../rollout/run-plan';
import type { Transaction } from '../repositories/unit-of-work';

/**
 * How the row of a Target whose instances are gone is deleted only by the
 * one entitled to: the push run holding its lease, or the report of the
 * agent's current assignment.
 */
export type DeletionFence = { kind: 'lease'; lease: { targetId: string; owner: string; epoch: number } } | { kind: 'assignment'; targetId: string; generation: number };

/** 'kept': the removal was called off meanwhile; 'lost': the fence no longer holds. */
export type DeletionEnd = 'deleted' | 'kept' | 'lost';

/**
 * The end of a successful deletion run: the Target (and its Run rows) go,
 * with the event and, after the last Target, the Project and its
 * credentials, in the caller's transaction.
 */
@Injectable()
export class TargetDeletion {
  constructor(
    private readonly events: EventsService,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
  ) {}

  /** `deleted`: what the run's result records (its events), once the Target is sure to go, before the events of its going. */
  async finish(tx: Transaction, fence: DeletionFence, project: ProjectEntity, cluster: Pick<ClusterEntity, 'name'>, deleted?: (tx: Transaction) => Promise<void>): Promise<DeletionEnd> {
    // two Targets finishing at once must not both see the other still there and leave the Project behind
    await tx.projects.lock(project.id);
    const targetId = fence.kind === 'lease' ? fence.lease.targetId : fence.targetId;
    const current = await tx.targets.findById(targetId);
    if (current && !deletesInstances(project, current)) return 'kept';
    const gone = fence.kind === 'lease' ? await tx.targets.deleteLeased(fence.lease) : await tx.targets.deleteAssigned(fence.targetId, fence.generation);
    if (!gone) return 'lost';
    await deleted?.(tx);
    await this.events.record({ projectId: project.id, clusterName: cluster.name, type: 'Normal', reason: 'InstancesDeleted', message: `instances of project ${project.name} removed from cluster ${cluster.name}` }, tx);
    if (project.deletionRequestedAt && (await tx.targets.forProject(project.id)).length === 0) {
      await this.events.record({ projectId: project.id, clusterName: null, type: 'Normal', reason: 'ProjectDeleted', message: `project ${project.name} deleted after its instances were removed` }, tx);
      await tx.projects.delete(project.id);
      if (project.registryCredentialId) await tx.credentials.delete(project.registryCredentialId);
      tx.afterCommit(() => this.logger.info({ project: project.name }, 'project deleted after its instances were removed'));
    }
    return 'deleted';
  }
}
