import type { UpgradeResult } from '@flotilla/agent-protocol';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { ConflictError, NotFoundError } from '../common/errors';
import { HUB_VERSION } from '../common/hub-version';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { HUB_LOGGER } from '../logging/logging.module';
import { NotificationBus } from '../notify/notification-bus';
import { ClustersRepository } from '../repositories/clusters.repository';
import { AgentLinksRepository } from './agent-links.repository';
import type { AgentSession } from './agent-session';
import { AgentSessions } from './agent-sessions';
import type { AgentUpgradeDto } from './agents.dto';
import { agentSkew, parseRelease } from './version-skew';

/**
 * Agent versions against the hub's: the skew warning when an agent connects,
 * and upgrades, which send the hub's configured agent image (and only that)
 * over the agent's stream, on request or, with FLOTILLA_AGENT_AUTO_UPGRADE,
 * when an agent of another version connects. The agent patches its own
 * Deployment; Kubernetes rolls it, and the new agent connects with its
 * version. A request on a replica without the stream goes to the one with it.
 */
@Injectable()
export class AgentUpgrades {
  constructor(
    private readonly clusters: ClustersRepository,
    private readonly links: AgentLinksRepository,
    private readonly sessions: AgentSessions,
    private readonly bus: NotificationBus,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
  ) {
    bus.on((n) => {
      if (n.topic === 'agent-upgrade') this.sendHere(n.clusterId, 'requested');
    });
  }

  /** The upgrade an operator asked for: 404 for no cluster of that name, 409 for a push cluster (as the other agent routes) or an agent not connected. */
  async request(name: string): Promise<AgentUpgradeDto> {
    const cluster = await this.clusters.findByName(name);
    if (!cluster) throw new NotFoundError('cluster', name);
    if (cluster.mode !== 'agent') throw new ConflictError(`cluster "${name}" is a push cluster: it has no agent to upgrade`);
    const state = (await this.links.states([cluster.id])).get(cluster.id);
    if (!state?.connected) {
      throw new ConflictError(`the agent of cluster "${name}" is not connected: an upgrade goes over its stream, so ask again once it is (or install the hub's agent image with flotilla cluster install-agent ${name})`);
    }
    const image = this.config.agents.image;
    // this replica's stream, else the notice reaches the replica that holds it (every replica hears it)
    if (!this.sendHere(cluster.id, 'requested')) this.bus.publish({ topic: 'agent-upgrade', clusterId: cluster.id });
    return {
      cluster: name,
      image,
      fromVersion: state.agentVersion,
      hubVersion: HUB_VERSION,
      message: `sent ${image} to the agent of cluster ${name}: it sets it on its Deployment and Kubernetes rolls it; the cluster's agent version changes once a new agent is ready and connected (a new agent that never becomes ready leaves the old one running)`,
    };
  }

  /** At Hello: warns of an agent outside the skew policy; with auto-upgrade on, moves one of another version to the hub's image. */
  connected(session: AgentSession, agentVersion: string, log: Logger): void {
    const skew = agentSkew(HUB_VERSION, agentVersion || null);
    if (!skew.supported) log.warn({ agentVersion, hubVersion: HUB_VERSION, skew: skew.status }, `agent version outside the hub's skew policy: ${skew.message}`);
    // only a release that differs: a development build or an unknown version is someone's choice, not an old agent
    if (this.config.agents.autoUpgrade && parseRelease(agentVersion) && agentVersion !== HUB_VERSION) {
      log.info({ agentVersion, hubVersion: HUB_VERSION, image: this.config.agents.image }, 'auto-upgrade: sending the hub\'s agent image');
      this.send(session, 'auto');
    }
  }

  /** The agent's answer: its Deployment took the image, or why not. */
  result(r: UpgradeResult, log: Logger): void {
    if (r.error) log.warn({ image: r.image, error: r.error }, 'the agent could not upgrade itself; the old agent keeps running');
    else log.info({ image: r.image }, 'the agent set the image on its Deployment; Kubernetes rolls it');
  }

  private sendHere(clusterId: string, why: 'requested' | 'auto'): boolean {
    const session = this.sessions.get(clusterId);
    if (!session || session.closed.aborted) return false;
    this.send(session, why);
    return true;
  }

  private send(session: AgentSession, why: 'requested' | 'auto'): void {
    const image = this.config.agents.image;
    this.logger.info({ cluster: session.identity.clusterName, image, why }, 'agent upgrade sent');
    session.send({ body: { $case: 'upgrade', value: { image } } });
  }
}
