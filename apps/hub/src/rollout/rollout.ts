// Rollout waves: with `rollout.groups`, a revision reaches the clusters of a
// group only once every Target of the groups before is Ready on it. Groups not
// listed form one last wave.

export interface WaveMember {
  group: string;
  phase: string;
  lastAppliedRevision: string | null;
}

/** Index of the wave a cluster group belongs to. */
export function waveOf(groups: readonly string[], group: string): number {
  const i = groups.indexOf(group);
  return i < 0 ? groups.length : i;
}

export interface GateDecision {
  open: boolean;
  /** when closed: the group that holds the wave back */
  waitingFor?: string;
}

/**
 * Whether a Target in `group` may move to `revision`: every Target in an
 * earlier wave must be Ready on exactly that revision (a failure there halts it).
 */
export function rolloutGate(groups: readonly string[], group: string, revision: string, members: readonly WaveMember[]): GateDecision {
  if (groups.length === 0) return { open: true };
  const wave = waveOf(groups, group);
  const blocking = members
    .filter((m) => waveOf(groups, m.group) < wave)
    .filter((m) => !(m.phase === 'Ready' && m.lastAppliedRevision === revision))
    .sort((a, b) => waveOf(groups, a.group) - waveOf(groups, b.group));
  return blocking.length === 0 ? { open: true } : { open: false, waitingFor: blocking[0].group };
}

/**
 * Targets not yet on `revision` whose wave is open: they should run now.
 * `afterGroup`: only waves after that group's (a Target of it has just
 * become Ready, which can open only later waves; its own wave was open).
 */
export function targetsToAdvance(groups: readonly string[], revision: string, targets: ReadonlyArray<WaveMember & { id: string }>, afterGroup?: string): string[] {
  const from = afterGroup === undefined ? -1 : waveOf(groups, afterGroup);
  return targets
    .filter((t) => t.lastAppliedRevision !== revision && t.phase !== 'Suspended' && t.phase !== 'Deleting')
    .filter((t) => waveOf(groups, t.group) > from)
    .filter((t) => rolloutGate(groups, t.group, revision, targets).open)
    .map((t) => t.id);
}

/**
 * What a rollout wave holds back of `revision`, in words naming the groups
 * held and the group they wait for; undefined when nothing is held.
 * `advancing`: the Targets moving to it now.
 */
export function heldBack(groups: readonly string[], revision: string, targets: ReadonlyArray<WaveMember & { id: string }>, advancing: ReadonlySet<string>): string | undefined {
  const held = targets.filter((t) => !advancing.has(t.id) && t.lastAppliedRevision !== revision && t.phase !== 'Suspended' && t.phase !== 'Deleting');
  if (held.length === 0) return undefined;
  const heldGroups = [...new Set(held.map((t) => t.group))].sort((a, b) => waveOf(groups, a) - waveOf(groups, b));
  const waitingFor = rolloutGate(groups, heldGroups[0], revision, targets).waitingFor;
  if (!waitingFor) return undefined;
  return `revision ${revision} waits in group${heldGroups.length > 1 ? 's' : ''} ${heldGroups.join(', ')} for group ${waitingFor} to be Ready on it`;
}

/** What a held Target's condition says (its message starts with this). */
export function holdMessage(revision: string, waitingFor: string): string {
  return `revision ${revision} waits for group ${waitingFor} to be Ready on it`;
}

const HOLD = /^revision (\S+) waits for group (\S+) to be Ready on it/;

/**
 * The Project's view of its held Targets: their RolloutWaiting messages and
 * groups, in the words of the Project's event (heldBack); undefined when none is held.
 */
export function projectHold(groups: readonly string[], held: ReadonlyArray<{ group: string; message: string }>): string | undefined {
  const byHold = new Map<string, Set<string>>();
  for (const h of held) {
    const m = HOLD.exec(h.message);
    if (!m) continue;
    const key = `${m[1]} ${m[2]}`;
    byHold.set(key, (byHold.get(key) ?? new Set()).add(h.group));
  }
  const parts = [...byHold].map(([key, heldGroups]) => {
    const [revision, waitingFor] = key.split(' ');
    const sorted = [...heldGroups].sort((a, b) => waveOf(groups, a) - waveOf(groups, b));
    return `revision ${revision} waits in group${sorted.length > 1 ? 's' : ''} ${sorted.join(', ')} for group ${waitingFor} to be Ready on it`;
  });
  return parts.length ? parts.join('; ') : undefined;
}
