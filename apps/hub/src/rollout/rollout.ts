// Rollout waves: a revision reaches the clusters of a wave only once every
// earlier wave is Ready and Healthy on it and has stayed so for its soak; in
// an open wave at most `maxConcurrent` Targets move at once, and more than
// `maxFailures` failed Targets halt the rollout. Pure: the same facts give
// the same answer to the push scheduler, the agent dispatch and the API.
import { windowCheck } from './rollout-windows';
import { type Wave, amountOf, waveIndex } from './wave-spec';

export interface WaveMember {
  id: string;
  group: string;
  phase: string;
  lastAppliedRevision: string | null;
  /** since when it is Ready and Healthy on lastAppliedRevision (null: it is not) */
  healthySince: Date | null;
  /** since when lastAppliedRevision is what it is */
  revisionSince: Date | null;
  /** its consecutive failed runs (0: none, or its last run succeeded) */
  attempt?: number;
}

export type MemberState = 'pending' | 'progressing' | 'healthy' | 'failed';

export type WaveState = 'waiting' | 'awaitingApproval' | 'progressing' | 'soaking' | 'done' | 'failed' | 'rolledBack';

export interface WaveStatus {
  index: number;
  groups: string[];
  state: WaveState;
  total: number;
  pending: number;
  progressing: number;
  healthy: number;
  failed: number;
  /** failures the wave tolerates */
  failureBudget: number;
  /** Targets that may move at once (null: all) */
  batchSize: number | null;
  /** soaking: when the soak ends; done: when it ended */
  soakUntil?: Date;
  /** since when it is in this state, where the facts tell (waiting: never) */
  since?: Date;
  /** why the Targets of this wave not yet moving wait, in the words of their condition */
  hold?: string;
  /** outside this wave's own windows now: which window says so */
  windowClosed?: string;
}

export interface RolloutDecision {
  waves: WaveStatus[];
  /** per Target: its wave and state */
  members: Map<string, { wave: number; state: MemberState }>;
  /** Targets that may be on the revision now: those there, and those whose turn it is */
  movable: Set<string>;
}

/** `approved`: indexes of the waves someone approved for this revision. */
export interface DecideOptions {
  approved?: ReadonlySet<number>;
  /** the rollout is on hold: Targets already on the revision stay, no other starts */
  onHold?: boolean;
  /** outside the rollout windows: why; no Target starts the revision and no wave opens, as on hold */
  closed?: string;
  /** the revision was rolled back in this wave: its Targets and those of later waves leave it */
  rolledBackWave?: number;
}

const INACTIVE = new Set(['Suspended', 'Deleting']);

/** Failed, or running a retry of a failed run: a retry in flight leaves the wave's failures as they are. */
function failing(m: WaveMember): boolean {
  return m.phase === 'Failed' || (m.phase === 'Reconciling' && (m.attempt ?? 0) > 0);
}

function memberState(m: WaveMember, revision: string, wave: Wave, open: boolean, now: Date): MemberState {
  const on = m.lastAppliedRevision === revision;
  if (failing(m) && (on || open)) return 'failed';
  if (!on) return 'pending';
  if (m.healthySince) return 'healthy';
  if (m.revisionSince && now.getTime() - m.revisionSince.getTime() >= wave.progressDeadlineMs) return 'failed';
  return 'progressing';
}

/**
 * The Targets a rollback of `revision` from wave `wave` on runs again: in
 * that wave or a later one, and either on the revision or failing it (also
 * while a retry of it runs, which would otherwise keep the bad revision).
 */
export function rollbackTargets(waves: readonly Wave[], revision: string, wave: number, members: readonly WaveMember[]): string[] {
  return members.filter((m) => waveIndex(waves, m.group) >= wave && (m.lastAppliedRevision === revision || failing(m))).map((m) => m.id);
}

/** Which member holds a wave back, for the words of the hold: the first not yet healthy, by group order. */
function holder(wave: Wave, states: ReadonlyArray<{ m: WaveMember; s: MemberState }>): string {
  const notDone = states.filter((x) => x.s === 'pending' || x.s === 'progressing').map((x) => x.m.group);
  for (const g of wave.groups) if (notDone.includes(g)) return g;
  return notDone.sort()[0] ?? wave.groups[0] ?? 'unlisted';
}

/** What the rollout of `revision` looks like now, wave by wave, and which Targets may move. */
export function decideRollout(waves: readonly Wave[], revision: string, members: readonly WaveMember[], now: Date, options: DecideOptions = {}): RolloutDecision {
  const byWave = waves.map(() => [] as WaveMember[]);
  for (const m of members) byWave[waveIndex(waves, m.group)].push(m);
  const out: RolloutDecision = { waves: [], members: new Map(), movable: new Set() };
  // why later waves wait: set by the first wave that is not done
  let blocked: string | undefined;
  // when the wave before ended (the first wave: when the revision reached a Target of it)
  let opened: Date | undefined;
  // on hold or outside the windows: what a paused wave waits for
  const paused = options.onHold ? 'be released: the rollout is on hold' : options.closed ? `be in a rollout window: ${options.closed}` : undefined;
  waves.forEach((wave, index) => {
    const list = byWave[index].slice().sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const groupName = wave.groups[0] ?? list[0]?.group ?? 'unlisted';
    const needsApproval = wave.approval && !(options.approved?.has(index) ?? false);
    const open = blocked === undefined && !needsApproval;
    const states = list.map((m) => ({ m, s: memberState(m, revision, wave, open, now) }));
    // the wave's own windows hold only its own clusters; the Project's hold every wave
    const ownWindow = paused || wave.windows.length === 0 ? undefined : windowCheck(wave.windows, now);
    const wavePaused = paused ?? (ownWindow && !ownWindow.open ? `be in its rollout window: ${ownWindow.reason}` : undefined);
    const count = (s: MemberState) => states.filter((x) => x.s === s).length;
    const status: WaveStatus = {
      index, groups: wave.groups, state: 'waiting', total: list.length,
      ...(ownWindow && !ownWindow.open ? { windowClosed: ownWindow.reason } : {}),
      pending: count('pending'), progressing: count('progressing'), healthy: count('healthy'), failed: count('failed'),
      failureBudget: amountOf(wave.maxFailures, list.length),
      batchSize: wave.maxConcurrent === null ? null : Math.max(1, amountOf(wave.maxConcurrent, list.length)),
    };
    for (const x of states) out.members.set(x.m.id, { wave: index, state: x.s });
    const earliest = (xs: Array<Date | null>) => xs.reduce<Date | undefined>((a, d) => (d && (!a || d < a) ? d : a), undefined);
    const onRevision = states.filter((x) => x.m.lastAppliedRevision === revision).map((x) => x.m.revisionSince);
    if (blocked === undefined && options.rolledBackWave !== undefined && index >= options.rolledBackWave) {
      // rolled back: nobody here keeps or takes the revision until a retry or a new revision
      status.state = 'rolledBack';
      status.hold = `revision ${revision} waits for group ${groupName} to be retried: rolled back after the wave failed`;
      blocked = status.hold;
    } else if (blocked !== undefined) {
      status.hold = blocked;
    } else if (needsApproval) {
      status.state = 'awaitingApproval';
      status.since = opened;
      status.hold = `revision ${revision} waits for group ${groupName} to be approved`;
      blocked = status.hold;
    } else if (status.failed > status.failureBudget) {
      status.state = 'failed';
      status.since = earliest(onRevision) ?? opened;
      status.hold = `revision ${revision} waits for group ${groupName} to recover: ${status.failed} of ${status.total} Target(s) failed, ${status.failureBudget} allowed`;
      blocked = status.hold;
      // on the revision, or retrying it: they stay on it; nobody else starts
      for (const x of states) if (x.s !== 'pending') out.movable.add(x.m.id);
    } else {
      for (const x of states) if (x.s !== 'pending') out.movable.add(x.m.id);
      const pending = states.filter((x) => x.s === 'pending');
      const slots = wavePaused ? 0 : status.batchSize === null ? pending.length : Math.max(0, status.batchSize - status.progressing);
      for (const x of pending.slice(0, slots)) out.movable.add(x.m.id);
      if (wavePaused && pending.length > 0) status.hold = `revision ${revision} waits for group ${groupName} to ${wavePaused}`;
      else if (pending.length > slots) status.hold = `revision ${revision} waits for group ${groupName} to free a batch slot: ${status.progressing} of ${status.batchSize} moving`;
      if (status.pending + status.progressing > 0) {
        // paused before any of its clusters moved, the wave has not started: it waits
        if (!(wavePaused && status.pending === status.total)) {
          status.state = 'progressing';
          status.since = opened ?? earliest(onRevision);
        }
        blocked = wavePaused ? `revision ${revision} waits for group ${holder(wave, states)} to ${wavePaused}` : `revision ${revision} waits for group ${holder(wave, states)} to be Ready and Healthy on it`;
      } else {
        const healthySince = states.filter((x) => x.s === 'healthy').map((x) => x.m.healthySince!.getTime());
        const soakUntil = healthySince.length === 0 ? now.getTime() : Math.max(...healthySince) + wave.soakMs;
        status.soakUntil = new Date(soakUntil);
        status.since = new Date(soakUntil - wave.soakMs);
        if (soakUntil > now.getTime()) {
          status.state = 'soaking';
          blocked = `revision ${revision} waits for group ${groupName} to soak until ${status.soakUntil.toISOString()}`;
        } else {
          status.state = 'done';
          status.since = status.soakUntil;
          opened = status.soakUntil;
          // on hold, the next wave does not open
          if (paused) blocked = `revision ${revision} waits for group ${groupName} to ${paused}`;
        }
      }
    }
    out.waves.push(status);
  });
  return out;
}

export interface GateDecision {
  open: boolean;
  /** when closed: why, as the Target's condition says it */
  message?: string;
}

/** Whether the Target `id` (one of `members`) may move to `revision`. */
export function rolloutGate(decision: RolloutDecision, id: string): GateDecision {
  if (decision.movable.has(id)) return { open: true };
  const at = decision.members.get(id);
  return { open: false, message: at === undefined ? undefined : decision.waves[at.wave].hold };
}

/**
 * Targets not yet on `revision` whose turn it is and that did not fail on it:
 * they should run now (a failed one retries on its backoff).
 */
export function targetsToAdvance(decision: RolloutDecision, members: readonly WaveMember[]): string[] {
  return members
    .filter((m) => !INACTIVE.has(m.phase) && decision.movable.has(m.id) && decision.members.get(m.id)?.state === 'pending')
    .map((m) => m.id);
}

const HOLD_PREFIX = 'revision ';
const HOLD_MIDDLE = ' waits for group ';

/** The revision, the group waited for and what for, of a hold message; undefined when it is none. */
function parseHold(message: string): { revision: string; group: string; what: string } | undefined {
  if (!message.startsWith(HOLD_PREFIX)) return undefined;
  const rest = message.slice(HOLD_PREFIX.length);
  const mid = rest.indexOf(HOLD_MIDDLE);
  if (mid <= 0 || rest.slice(0, mid).includes(' ')) return undefined;
  const after = rest.slice(mid + HOLD_MIDDLE.length);
  const space = after.indexOf(' ');
  if (space <= 0) return undefined;
  const end = after.indexOf(';');
  return { revision: rest.slice(0, mid), group: after.slice(0, space), what: after.slice(space + 1, end < 0 ? undefined : end) };
}

function holdSentence(revision: string, heldGroups: readonly string[], group: string, what: string): string {
  return `revision ${revision} waits in group${heldGroups.length > 1 ? 's' : ''} ${heldGroups.join(', ')} for group ${group} ${what}`;
}

/**
 * What a rollout holds back of `revision`, in words naming the groups held
 * and what they wait for; undefined when nothing is held.
 */
export function heldBack(waves: readonly Wave[], decision: RolloutDecision, members: readonly WaveMember[]): string | undefined {
  return projectHold(
    waves,
    members.filter((m) => !INACTIVE.has(m.phase) && !decision.movable.has(m.id)).flatMap((m) => {
      const message = rolloutGate(decision, m.id).message;
      return message ? [{ group: m.group, message }] : [];
    }),
  );
}

/**
 * The Project's view of its held Targets: their RolloutWaiting messages and
 * groups, in the words of the Project's event (heldBack); undefined when none is held.
 */
export function projectHold(waves: readonly Wave[], held: ReadonlyArray<{ group: string; message: string }>): string | undefined {
  const byHold = new Map<string, { revision: string; group: string; what: string; held: Set<string> }>();
  for (const h of held) {
    const parsed = parseHold(h.message);
    if (!parsed) continue;
    const key = `${parsed.revision} ${parsed.group} ${parsed.what}`;
    const entry = byHold.get(key) ?? { ...parsed, held: new Set<string>() };
    byHold.set(key, entry);
    entry.held.add(h.group);
  }
  const parts = [...byHold.values()].map((e) => {
    const sorted = [...e.held].sort((a, b) => waveIndex(waves, a) - waveIndex(waves, b) || (a < b ? -1 : 1));
    return holdSentence(e.revision, sorted, e.group, e.what);
  });
  return parts.length ? parts.join('; ') : undefined;
}
