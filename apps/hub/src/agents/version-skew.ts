// Which agent releases a hub works with: its own minor and the one before,
// in the same major. An agent outside it still connects (the protocol only
// ever adds fields), but the hub warns and the cluster view says so.

export type SkewStatus = 'supported' | 'too-old' | 'too-new' | 'unknown';

export interface AgentSkew {
  status: SkewStatus;
  supported: boolean;
  message: string;
}

interface Release {
  major: number;
  minor: number;
  patch: number;
  /** a pre-release or build suffix: a development build */
  suffix: string;
}

const DIGITS = /^(0|[1-9]\d{0,8})$/;

/** `MAJOR.MINOR.PATCH[-pre][+build]` (a leading `v` allowed), or null: read by splitting, no pattern over the whole. */
export function parseRelease(text: string): Release | null {
  const plain = text.startsWith('v') ? text.slice(1) : text;
  const cut = [plain.indexOf('-'), plain.indexOf('+')].filter((i) => i >= 0);
  const end = cut.length ? Math.min(...cut) : plain.length;
  const parts = plain.slice(0, end).split('.');
  if (parts.length !== 3 || !parts.every((p) => DIGITS.test(p))) return null;
  const [major, minor, patch] = parts.map(Number);
  return { major, minor, patch, suffix: plain.slice(end) };
}

/** The supported agent minors of a hub release, as people read them: `0.4.x, 0.5.x`. */
function supportedRange(hub: Release): string {
  return hub.minor === 0 ? `${hub.major}.0.x` : `${hub.major}.${hub.minor - 1}.x and ${hub.major}.${hub.minor}.x`;
}

/**
 * Whether an agent of `agentVersion` is within the skew policy of a hub of
 * `hubVersion`: same major, agent minor the hub's or the one before. A
 * version that is not a release (missing, `unknown`, a development build
 * with a suffix) is `unknown`: not supported, and said so.
 */
export function agentSkew(hubVersion: string, agentVersion: string | null): AgentSkew {
  // every cluster view asks; a fleet runs a handful of versions
  const key = `${hubVersion.length}:${hubVersion}${agentVersion ?? ''}`;
  let skew = decided.get(key);
  if (!skew) {
    if (decided.size >= 256) decided.clear();
    skew = Object.freeze(decideSkew(hubVersion, agentVersion));
    decided.set(key, skew);
  }
  return skew;
}

const decided = new Map<string, AgentSkew>();

function decideSkew(hubVersion: string, agentVersion: string | null): AgentSkew {
  const hub = parseRelease(hubVersion);
  if (!hub) return { status: 'unknown', supported: false, message: `this hub (${hubVersion}) is not a release: no skew policy applies` };
  const range = supportedRange(hub);
  if (agentVersion === null || agentVersion === '' || agentVersion === 'unknown') {
    return { status: 'unknown', supported: false, message: `the agent has not said its version: this hub supports agents ${range}` };
  }
  const agent = parseRelease(agentVersion);
  if (!agent) return { status: 'unknown', supported: false, message: `agent version ${agentVersion} is not a release: this hub supports agents ${range}` };
  if (agent.suffix) return { status: 'unknown', supported: false, message: `agent version ${agentVersion} is a development build: this hub supports releases ${range}` };
  const older = agent.major < hub.major || (agent.major === hub.major && agent.minor < hub.minor - 1);
  const newer = agent.major > hub.major || (agent.major === hub.major && agent.minor > hub.minor);
  if (older) return { status: 'too-old', supported: false, message: `agent ${agentVersion} is older than this hub (${hubVersion}) supports (${range}): upgrade it (flotilla cluster upgrade-agent)` };
  if (newer) return { status: 'too-new', supported: false, message: `agent ${agentVersion} is newer than this hub (${hubVersion}) supports (${range}): upgrade the hub first, or move the agent to the hub's version (flotilla cluster upgrade-agent)` };
  return { status: 'supported', supported: true, message: `agent ${agentVersion} is within this hub's (${hubVersion}) supported versions (${range})` };
}
