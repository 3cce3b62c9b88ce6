import { Injectable } from '@nestjs/common';
import { NotificationBus } from '../notify/notification-bus';
import type { AgentSession } from './agent-session';

/** The agent streams this replica holds, one per cluster. */
@Injectable()
export class AgentSessions {
  private readonly byCluster = new Map<string, AgentSession>();

  constructor(private readonly bus: NotificationBus) {
    bus.on((n) => {
      const s = n.topic === 'agent-cut' ? this.byCluster.get(n.clusterId) : undefined;
      // a stream opened after the cut was decided carries a newer certificate
      if (n.topic === 'agent-cut' && s && s.openedAt <= n.before) s.close(n.reason);
    });
  }

  /** A second stream of the same agent replaces the first (it reconnected before the old one timed out). */
  add(session: AgentSession): void {
    this.byCluster.get(session.identity.clusterId)?.close('the agent opened a newer stream');
    this.byCluster.set(session.identity.clusterId, session);
  }

  remove(session: AgentSession): boolean {
    if (this.byCluster.get(session.identity.clusterId) !== session) return false;
    this.byCluster.delete(session.identity.clusterId);
    return true;
  }

  get(clusterId: string): AgentSession | undefined {
    return this.byCluster.get(clusterId);
  }

  get size(): number {
    return this.byCluster.size;
  }

  clusterIds(): string[] {
    return [...this.byCluster.keys()];
  }

  all(): AgentSession[] {
    return [...this.byCluster.values()];
  }

  /** Cuts the cluster's stream on whichever replica holds it. */
  cut(clusterId: string, reason: string): void {
    this.byCluster.get(clusterId)?.close(reason);
    this.bus.publish({ topic: 'agent-cut', clusterId, reason, before: Date.now() });
  }

  /** Cuts the cluster's stream on this replica only (others find a replaced certificate at their next watch). */
  cutHere(clusterId: string, reason: string): void {
    this.byCluster.get(clusterId)?.close(reason);
  }
}
