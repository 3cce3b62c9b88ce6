import { HUB_VERSION } from '../common/hub-version';
import type { AgentLinkState } from './agent-links.repository';
import type { AgentViewDto } from './agents.dto';
import { agentSkew } from './version-skew';

/** The API view of an agent's state; an agent never seen is disconnected and unregistered. */
export function agentView(s: AgentLinkState | undefined, hubVersion: string = HUB_VERSION): AgentViewDto {
  const version = s?.agentVersion ?? null;
  const skew = agentSkew(hubVersion, version);
  return {
    connected: s?.connected ?? false,
    since: s?.statusSince ?? null,
    version,
    supported: skew.supported,
    skew: skew.message,
    lastHeartbeat: s?.lastHeartbeatAt ?? null,
    registered: s?.registered ?? false,
  };
}
