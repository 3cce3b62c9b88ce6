import { Injectable } from '@nestjs/common';
import type { OutsideDestinations, ProjectEntity, TargetEntity, TargetPhase } from '../database/entities';
import { EventsService } from '../events/events.service';
import type { Transaction } from '../repositories/unit-of-work';
import { RunTriggers } from '../scheduler/run-triggers';
import { inDestinations } from '../tenancy/tenant-rules';
import { type ClusterFacts, clusterIsTargeted } from './selector';
import type { HubEventReason } from '../events/hub-event';

/**
 * Keeps one Target per (Project, matching Cluster): called whenever a Project's
 * selector or a Cluster's name, group or labels change, inside the transaction
 * of that change so Targets and their events commit with it or not at all.
 * Idempotent, so a concurrent call on another replica converges to the same rows.
 */
@Injectable()
export class MembershipService {
  constructor(
    private readonly events: EventsService,
    private readonly triggers: RunTriggers,
  ) {}

  async syncProject(tx: Transaction, project: ProjectEntity): Promise<void> {
    await tx.targets.lockMembership();
    const clusters = await tx.clusters.allForSelection();
    const tenant = await tx.tenants.findByName(project.tenant);
    const matching = clusters.filter((c) => clusterIsTargeted(project.targetSelector, factsOf(c)));
    // a cluster outside the tenant's destinations gets no Target: nothing can ever be applied there
    const wanted = matching.filter((c) => tenant !== null && inDestinations(tenant.destinations, factsOf(c)));
    await this.noteOutside(tx, project, matching, wanted);
    const existing = await tx.targets.forProject(project.id);
    const have = new Map(existing.map((t) => [t.clusterId, t]));
    const want = new Set(wanted.map((c) => c.id));
    const added = wanted.filter((c) => !have.has(c.id));
    await tx.targets.insertMissing(added.map((c) => this.newTarget(project, c)));
    for (const c of added) await this.note(tx, project.id, c.name, 'TargetAdded', `cluster ${c.name} now matches the Project's targets`);
    for (const c of wanted) {
      const t = have.get(c.id);
      if (t?.removalRequestedAt) await this.keep(tx, project, t, c.name);
    }
    for (const t of existing.filter((t) => !want.has(t.clusterId))) await this.remove(tx, project, t, t.cluster?.name ?? t.clusterId);
  }

  async syncCluster(tx: Transaction, clusterId: string): Promise<void> {
    await tx.targets.lockMembership();
    // this cluster only: a registration's cost must not grow with the inventory
    const cluster = await tx.clusters.forSelection(clusterId);
    if (!cluster) return;
    const facts = factsOf(cluster);
    const projects = await tx.projects.all();
    const destinations = new Map((await tx.tenants.all()).map((t) => [t.name, t.destinations]));
    const existing = new Map((await tx.targets.forCluster(clusterId)).map((t) => [t.projectId, t]));
    let clusters: SelectableCluster[] | undefined;
    for (const p of projects) {
      const matches = clusterIsTargeted(p.targetSelector, facts);
      const allowed = destinations.has(p.tenant) && inDestinations(destinations.get(p.tenant)!, facts);
      const wanted = matches && allowed;
      // the Project's list of clusters outside its destinations may change: read it again (rare: only restricted Projects)
      if ((matches && !allowed) || p.outsideDestinations) {
        clusters ??= await tx.clusters.allForSelection();
        const matching = clusters.filter((c) => clusterIsTargeted(p.targetSelector, factsOf(c)));
        await this.noteOutside(tx, p, matching, matching.filter((c) => destinations.has(p.tenant) && inDestinations(destinations.get(p.tenant)!, factsOf(c))));
      }
      const target = existing.get(p.id);
      if (wanted && !target) {
        await tx.targets.insertMissing([this.newTarget(p, cluster)]);
        await this.note(tx, p.id, cluster.name, 'TargetAdded', `cluster ${cluster.name} now matches the Project's targets`);
      } else if (wanted && target?.removalRequestedAt) {
        await this.keep(tx, p, target, cluster.name);
      } else if (!wanted && target) {
        await this.remove(tx, p, target, cluster.name);
      }
    }
  }

  /** Records which matching clusters lie outside the tenant's destinations (the Project's TargetsRestricted condition); writes only on change. */
  private async noteOutside(tx: Transaction, p: ProjectEntity, matching: SelectableCluster[], wanted: SelectableCluster[]): Promise<void> {
    const inside = new Set(wanted.map((c) => c.id));
    const outside = matching.filter((c) => !inside.has(c.id)).map((c) => c.name).sort();
    const next: OutsideDestinations | null = outside.length === 0 ? null : { count: outside.length, clusters: outside.slice(0, OUTSIDE_NAMES_SHOWN) };
    if (JSON.stringify(next) === JSON.stringify(p.outsideDestinations ?? null)) return;
    await tx.projects.update(p.id, { outsideDestinations: next });
    p.outsideDestinations = next;
    if (next) {
      await this.events.record(
        { projectId: p.id, clusterName: null, type: 'Warning', reason: 'OutsideTenantDestinations', message: `${next.count} cluster(s) match the targets but lie outside tenant "${p.tenant}"'s destinations; nothing is applied there: ${next.clusters.join(', ')}` },
        tx,
      );
    }
  }

  /**
   * A cluster left the Project's targets. With `targetRemoval: delete` the
   * Target stays, Deleting, until its run has deleted the instances there;
   * with `orphan` it goes now and the instances keep running. A Target that
   * never ran has nothing there and goes at once. A Project being
   * deleted already deletes everywhere; a Target already being removed is left alone.
   */
  private async remove(tx: Transaction, p: ProjectEntity, t: TargetEntity, clusterName: string): Promise<void> {
    if (t.removalRequestedAt || p.deletionRequestedAt) return;
    if (await tx.targets.deleteIfNeverRun(t.id)) {
      await this.note(tx, p.id, clusterName, 'TargetRemoved', `cluster ${clusterName} no longer matches the Project's targets; nothing was applied there`);
      return;
    }
    if (p.targetRemoval === 'orphan') {
      await tx.targets.deleteByIds([t.id]);
      await this.note(tx, p.id, clusterName, 'TargetRemoved', `cluster ${clusterName} no longer matches the Project's targets: its instances there are orphaned (targetRemoval: orphan)`);
      return;
    }
    await tx.targets.requestRemoval([t.id]);
    await this.note(tx, p.id, clusterName, 'TargetRemoved', `cluster ${clusterName} no longer matches the Project's targets: deleting its instances there`);
    tx.afterCommit(() => this.triggers.runsDue());
  }

  /** The cluster matches again before the removal finished: the Target reconciles there as before. */
  private async keep(tx: Transaction, p: ProjectEntity, t: TargetEntity, clusterName: string): Promise<void> {
    if (p.deletionRequestedAt) return;
    await tx.targets.cancelRemoval([t.id], initialPhase(p));
    await this.note(tx, p.id, clusterName, 'TargetAdded', `cluster ${clusterName} matches the Project's targets again: its removal is called off`);
    tx.afterCommit(() => this.triggers.runsDue());
  }

  /** A new Target row; on an agent cluster it runs once its agent is connected. */
  private newTarget(p: ProjectEntity, c: { id: string }) {
    return { projectId: p.id, clusterId: c.id, generation: p.generation, phase: initialPhase(p) };
  }

  private note(tx: Transaction, projectId: string, clusterName: string | null, reason: HubEventReason, message: string): Promise<void> {
    return this.events.record({ projectId, clusterName, type: 'Normal', reason, message }, tx);
  }
}

/** How many names of clusters outside the destinations a Project keeps to show. */
const OUTSIDE_NAMES_SHOWN = 10;

interface SelectableCluster {
  id: string;
  name: string;
  groupName: string;
  labels: Record<string, string>;
}

function factsOf(c: SelectableCluster): ClusterFacts {
  return { name: c.name, group: c.groupName, labels: c.labels };
}

function initialPhase(p: ProjectEntity): TargetPhase {
  return p.suspend ? 'Suspended' : 'Pending';
}
