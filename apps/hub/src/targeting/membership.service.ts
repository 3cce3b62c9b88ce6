import { Injectable } from '@nestjs/common';
import type { ProjectEntity, TargetPhase } from '../database/entities';
import { EventsService } from '../events/events.service';
import type { Transaction } from '../repositories/unit-of-work';
import { clusterIsTargeted } from './selector';
import type { HubEventReason } from '../events/hub-event';

/**
 * Keeps one Target per (Project, matching Cluster): called whenever a Project's
 * selector or a Cluster's name, group or labels change, inside the transaction
 * of that change so Targets and their events commit with it or not at all.
 * Idempotent, so a concurrent call on another replica converges to the same rows.
 */
@Injectable()
export class MembershipService {
  constructor(private readonly events: EventsService) {}

  async syncProject(tx: Transaction, project: ProjectEntity): Promise<void> {
    await tx.targets.lockMembership();
    const clusters = await tx.clusters.allForSelection();
    const wanted = clusters.filter((c) => clusterIsTargeted(project.targetSelector, { name: c.name, group: c.groupName, labels: c.labels }));
    const existing = await tx.targets.forProject(project.id);
    const have = new Set(existing.map((t) => t.clusterId));
    const want = new Set(wanted.map((c) => c.id));
    const added = wanted.filter((c) => !have.has(c.id));
    const removed = existing.filter((t) => !want.has(t.clusterId));
    await tx.targets.insertMissing(added.map((c) => this.newTarget(project, c)));
    await tx.targets.deleteByIds(removed.map((t) => t.id));
    for (const c of added) await this.note(tx, project.id, c.name, 'TargetAdded', `cluster ${c.name} now matches the Project's targets`);
    for (const t of removed) await this.note(tx, project.id, t.cluster?.name ?? null, 'TargetRemoved', `cluster ${t.cluster?.name ?? t.clusterId} no longer matches the Project's targets`);
  }

  async syncCluster(tx: Transaction, clusterId: string): Promise<void> {
    await tx.targets.lockMembership();
    const cluster = (await tx.clusters.allForSelection()).find((c) => c.id === clusterId);
    if (!cluster) return;
    const facts = { name: cluster.name, group: cluster.groupName, labels: cluster.labels };
    const projects = await tx.projects.all();
    const existing = new Map((await tx.targets.forCluster(clusterId)).map((t) => [t.projectId, t]));
    for (const p of projects) {
      const wanted = clusterIsTargeted(p.targetSelector, facts);
      const target = existing.get(p.id);
      if (wanted && !target) {
        await tx.targets.insertMissing([this.newTarget(p, cluster)]);
        await this.note(tx, p.id, cluster.name, 'TargetAdded', `cluster ${cluster.name} now matches the Project's targets`);
      } else if (!wanted && target) {
        await tx.targets.deleteByIds([target.id]);
        await this.note(tx, p.id, cluster.name, 'TargetRemoved', `cluster ${cluster.name} no longer matches the Project's targets`);
      }
    }
  }

  /** A new Target row; on an agent cluster it runs once its agent is connected. */
  private newTarget(p: ProjectEntity, c: { id: string }) {
    return { projectId: p.id, clusterId: c.id, generation: p.generation, phase: initialPhase(p) };
  }

  private note(tx: Transaction, projectId: string, clusterName: string | null, reason: HubEventReason, message: string): Promise<void> {
    return this.events.record({ projectId, clusterName, type: 'Normal', reason, message }, tx);
  }
}

function initialPhase(p: ProjectEntity): TargetPhase {
  return p.suspend ? 'Suspended' : 'Pending';
}
