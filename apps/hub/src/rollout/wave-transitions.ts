// Which rollout waves changed state since the hub last told anyone: the diff
// of the states decideRollout gives now against those announced. Pure; the
// caller stores the new states with a compare-and-set and records one event
// per transition, so each is told once.
import type { WaveState, WaveStatus } from './rollout';

/** The wave states announced for a revision, by wave index. */
export interface AnnouncedWaves {
  revision: string;
  states: WaveState[];
}

/** One wave's change of state, with the counts it had when it changed. */
export interface WaveTransition {
  wave: number;
  groups: string[];
  from: WaveState;
  to: WaveState;
  revision: string;
  total: number;
  healthy: number;
  progressing: number;
  pending: number;
  failed: number;
}

/**
 * States that can end with no report to say so (a soak ends, a progress
 * deadline passes): the rollout pass keeps visiting a Project that was last
 * told one of them, even once all its Targets are on the revision.
 */
export const UNSETTLED_STATES: readonly WaveState[] = ['progressing', 'soaking'];

/**
 * The transitions from `announced` to `waves` for `revision`, and the states to
 * store. A new revision starts from every wave waiting; nothing announced yet
 * (null, a Project from before notices) takes the present as announced. A wave
 * falling back to waiting (a new wave list) is stored, not told; so is the
 * implicit wave of unlisted groups while no cluster is in it.
 */
export function waveTransitions(announced: AnnouncedWaves | null, revision: string, waves: readonly WaveStatus[]): { next: AnnouncedWaves; transitions: WaveTransition[] } {
  const next: AnnouncedWaves = { revision, states: waves.map((w) => w.state) };
  if (announced === null) return { next, transitions: [] };
  const before = announced.revision === revision ? announced.states : [];
  const transitions: WaveTransition[] = [];
  for (const w of waves) {
    const from = before[w.index] ?? 'waiting';
    if (from === w.state || w.state === 'waiting') continue;
    // the implicit last wave of unlisted groups, with nobody in it, is no news
    if (w.groups.length === 0 && w.total === 0) continue;
    transitions.push({ wave: w.index, groups: w.groups, from, to: w.state, revision, total: w.total, healthy: w.healthy, progressing: w.progressing, pending: w.pending, failed: w.failed });
  }
  return { next, transitions };
}

/** True when the stored states equal `next` (no write needed). */
export function sameWaves(announced: AnnouncedWaves | null, next: AnnouncedWaves): boolean {
  return announced !== null && announced.revision === next.revision && announced.states.length === next.states.length && announced.states.every((s, i) => s === next.states[i]);
}
