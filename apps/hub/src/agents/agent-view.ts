import type { AgentLinkState } from './agent-links.repository';
import type { AgentViewDto } from './agents.dto';

/** The API view of an agent's state; an agent never seen is disconnected and unregistered. */
export function agentView(s: AgentLinkState | undefined): AgentViewDto {
  return {
    connected: s?.connected ?? false,
    since: s?.statusSince?.toISOString() ?? null,
    version: s?.agentVersion ?? null,
    lastHeartbeat: s?.lastHeartbeatAt?.toISOString() ?? null,
    registered: s?.registered ?? false,
  };
}
