import { Injectable } from '@nestjs/common';
import type { TenantReach } from '../tenancy/tenant-reach';
import { FleetRepository } from '../repositories/fleet.repository';
import { parseLabelSelector } from '../targeting/label-selector-parser';
import { FLEET_STATES, type FleetState } from './fleet-state';
import type { FleetSummaryDto, MatrixPageDto, MatrixQuery } from './fleet.dto';

function zeroCounts(): Record<FleetState, number> {
  return Object.fromEntries(FLEET_STATES.map((s) => [s, 0])) as Record<FleetState, number>;
}

/** The status page's fleet-wide views. */
@Injectable()
export class FleetService {
  constructor(private readonly fleet: FleetRepository) {}

  /** `reach`: a tenant member's (its Projects, the clusters it may target); undefined: the whole fleet. */
  async summary(reach?: TenantReach): Promise<FleetSummaryDto> {
    const { projects, groups } = await this.fleet.summary(reach);
    const targets = zeroCounts();
    let clusters = 0;
    const views = groups.map((g) => {
      clusters += g.clusters;
      const counts = zeroCounts();
      for (const [state, n] of Object.entries(g.states) as Array<[FleetState, number]>) {
        counts[state] = n;
        targets[state] += n;
      }
      return { group: g.group, clusters: g.clusters, unreachable: g.unreachable, targets: counts };
    });
    return { clusters, projects, targets, groups: views, states: [...FLEET_STATES] };
  }

  async matrix(q: MatrixQuery, reach?: TenantReach): Promise<MatrixPageDto> {
    const labelSelector = q.labelSelector !== undefined ? parseLabelSelector(q.labelSelector) : undefined;
    const { total, projects, rows } = await this.fleet.matrix(
      { name: q.name || undefined, group: q.group, labelSelector },
      { limit: q.limit, offset: q.offset, projectLimit: q.projects },
      reach,
    );
    return {
      projects,
      items: rows.map((r) => ({ cluster: r.name, group: r.group, mode: r.mode, reachable: r.reachable, lastCheckedAt: r.lastCheckedAt, labels: r.labels, cells: r.cells })),
      total,
      limit: q.limit,
      offset: q.offset,
    };
  }
}
