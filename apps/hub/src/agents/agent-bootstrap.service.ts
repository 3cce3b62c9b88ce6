import { Inject, Injectable } from '@nestjs/common';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { AgentLinksRepository } from './agent-links.repository';
import { newBootstrapToken, secretHash } from './agent-secrets';
import { AgentSessions } from './agent-sessions';

export interface IssuedBootstrapToken {
  bootstrapToken: string;
  bootstrapExpiresAt: string;
}

/** Bootstrap tokens of agent clusters: issued at registration, on reset and with every install manifest. */
@Injectable()
export class AgentBootstrapService {
  constructor(
    private readonly links: AgentLinksRepository,
    private readonly sessions: AgentSessions,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
  ) {}

  /** A fresh one-time token; the agent's current certificate keeps working until it registers with it. */
  async issue(clusterId: string): Promise<IssuedBootstrapToken> {
    const token = newBootstrapToken();
    const expires = await this.links.issueBootstrap(clusterId, secretHash(token), this.config.agents.bootstrapTtlMs);
    return { bootstrapToken: token, bootstrapExpiresAt: expires.toISOString() };
  }

  /** Revokes the agent's certificate, cuts its stream, and issues a new bootstrap token. History stays. */
  async reset(clusterId: string): Promise<IssuedBootstrapToken> {
    await this.links.revoke(clusterId);
    this.sessions.cut(clusterId, 'the agent was reset');
    return this.issue(clusterId);
  }
}
