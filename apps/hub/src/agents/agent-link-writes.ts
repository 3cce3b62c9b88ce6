import { Inject, Injectable } from '@nestjs/common';
import { Coalescer } from '../common/coalescer';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { AgentLinksRepository } from './agent-links.repository';

/** One change of an agent's link row, as this replica sees its stream. */
export type LinkWrite = { clusterId: string; kind: 'connected'; agentVersion: string } | { clusterId: string; kind: 'disconnected' } | { clusterId: string; kind: 'heartbeat' };

/** What a batch of link writes leaves behind: one state per cluster, heartbeats of the others. */
export interface LinkBatch {
  /** agent version by cluster */
  connected: Map<string, string>;
  disconnected: string[];
  heartbeats: string[];
}

/**
 * Folds writes in their order: the last connect or disconnect of a cluster
 * is its state (a row is updated once per statement); a heartbeat counts
 * only for clusters without one, as connecting stamps the heartbeat too.
 */
export function collapseLinkWrites(writes: readonly LinkWrite[]): LinkBatch {
  const state = new Map<string, LinkWrite>();
  const beats = new Set<string>();
  for (const w of writes) {
    if (w.kind === 'heartbeat') beats.add(w.clusterId);
    else state.set(w.clusterId, w);
  }
  const connected = new Map<string, string>();
  const disconnected: string[] = [];
  for (const [id, w] of state) {
    if (w.kind === 'connected') connected.set(id, w.agentVersion);
    else disconnected.push(id);
  }
  return { connected, disconnected, heartbeats: [...beats].filter((id) => !state.has(id)) };
}

/**
 * The connected, disconnected and heartbeat writes of this replica's agent
 * streams, in batches: a connect storm of thousands of agents, or their
 * heartbeats every few seconds, cost a few statements instead of one each.
 */
@Injectable()
export class AgentLinkWrites {
  private readonly batches: Coalescer<LinkWrite, void>;

  constructor(links: AgentLinksRepository, @Inject(HUB_CONFIG) config: HubConfig) {
    const replica = config.scheduler.hubId;
    this.batches = new Coalescer(async (writes) => {
      await links.writeBatch(replica, collapseLinkWrites(writes));
      return writes.map(() => undefined);
    }, { windowMs: 20, maxItems: 2000 });
  }

  connected(clusterId: string, agentVersion: string): Promise<void> {
    return this.batches.add({ clusterId, kind: 'connected', agentVersion: agentVersion.slice(0, 64) });
  }

  /** Only the replica that holds the stream marks it gone: the agent may already be back on another. */
  disconnected(clusterId: string): Promise<void> {
    return this.batches.add({ clusterId, kind: 'disconnected' });
  }

  heartbeat(clusterId: string): Promise<void> {
    return this.batches.add({ clusterId, kind: 'heartbeat' });
  }
}
