import { Injectable } from '@nestjs/common';
import { ClustersRepository } from '../clusters/clusters.repository';
import type { ProjectEntity, TargetPhase } from '../database/entities';
import { ProjectsRepository } from '../projects/projects.repository';
import { HistoryRepository } from './history.repository';
import { clusterIsTargeted } from './selector';
import { TargetsRepository } from './targets.repository';

/**
 * Keeps one Target per (Project, matching Cluster): called whenever a Project's
 * selector or a Cluster's name, group or labels change. Idempotent, so a
 * concurrent call on another replica converges to the same rows.
 */
@Injectable()
export class MembershipService {
  constructor(
    private readonly clusters: ClustersRepository,
    private readonly projects: ProjectsRepository,
    private readonly targets: TargetsRepository,
    private readonly history: HistoryRepository,
  ) {}

  async syncProject(project: ProjectEntity): Promise<void> {
    const clusters = await this.clusters.allForSelection();
    const wanted = clusters.filter((c) => clusterIsTargeted(project.targetSelector, { name: c.name, group: c.groupName, labels: c.labels }));
    const existing = await this.targets.forProject(project.id);
    const have = new Set(existing.map((t) => t.clusterId));
    const want = new Set(wanted.map((c) => c.id));
    const added = wanted.filter((c) => !have.has(c.id));
    const removed = existing.filter((t) => !want.has(t.clusterId));
    await this.targets.insertMissing(added.map((c) => ({ projectId: project.id, clusterId: c.id, generation: project.generation, phase: initialPhase(project) })));
    await this.targets.deleteByIds(removed.map((t) => t.id));
    for (const c of added) await this.note(project.id, c.name, 'TargetAdded', `cluster ${c.name} now matches the Project's targets`);
    for (const t of removed) await this.note(project.id, t.cluster?.name ?? null, 'TargetRemoved', `cluster ${t.cluster?.name ?? t.clusterId} no longer matches the Project's targets`);
  }

  async syncCluster(clusterId: string): Promise<void> {
    const cluster = (await this.clusters.allForSelection()).find((c) => c.id === clusterId);
    if (!cluster) return;
    const facts = { name: cluster.name, group: cluster.groupName, labels: cluster.labels };
    const projects = await this.projects.all();
    const existing = new Map((await this.targets.forCluster(clusterId)).map((t) => [t.projectId, t]));
    for (const p of projects) {
      const wanted = clusterIsTargeted(p.targetSelector, facts);
      const target = existing.get(p.id);
      if (wanted && !target) {
        await this.targets.insertMissing([{ projectId: p.id, clusterId, generation: p.generation, phase: initialPhase(p) }]);
        await this.note(p.id, cluster.name, 'TargetAdded', `cluster ${cluster.name} now matches the Project's targets`);
      } else if (!wanted && target) {
        await this.targets.deleteByIds([target.id]);
        await this.note(p.id, cluster.name, 'TargetRemoved', `cluster ${cluster.name} no longer matches the Project's targets`);
      }
    }
  }

  private note(projectId: string, clusterName: string | null, reason: string, message: string): Promise<void> {
    return this.history.recordEvent({ projectId, clusterName, type: 'Normal', reason, message });
  }
}

function initialPhase(p: ProjectEntity): TargetPhase {
  return p.suspend ? 'Suspended' : 'Pending';
}
