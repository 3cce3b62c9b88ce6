// The hub event a wave transition is: its reason, its words, and the facts a
// CDEvent consumer or a chat message reads (wave, groups, state, counts).
import type { RolloutWave } from '@flotilla/cdevents';
import type { HubEvent, HubEventReason } from '../events/hub-event';
import type { WaveState } from './rollout';
import type { WaveTransition } from './wave-transitions';

const REASONS: Record<Exclude<WaveState, 'waiting'>, HubEventReason> = {
  awaitingApproval: 'WaveAwaitingApproval',
  progressing: 'WaveProgressing',
  soaking: 'WaveSoaking',
  done: 'WaveDone',
  failed: 'WaveFailed',
  rolledBack: 'WaveRolledBack',
};

/** `progressing` → `is progressing`, as the message says it. */
const WORDS: Record<WaveState, string> = {
  waiting: 'waiting',
  awaitingApproval: 'awaiting approval',
  progressing: 'progressing',
  soaking: 'soaking',
  done: 'done',
  failed: 'failed',
  rolledBack: 'rolled back',
};

/** A wave state in words; an unknown one as it is. */
export function stateWords(state: string): string {
  return (WORDS as Record<string, string | undefined>)[state] ?? state;
}

/** The counts of a wave as one phrase: `1 of 2 healthy, 1 moving, 0 waiting, 0 failed`. */
export function countsPhrase(n: Pick<RolloutWave, 'total' | 'healthy' | 'progressing' | 'pending' | 'failed'>): string {
  return `${n.healthy} of ${n.total} healthy, ${n.progressing} moving, ${n.pending} waiting, ${n.failed} failed`;
}

/** The event of one transition; failed and rolled back are Warnings. Every wave event is an `environment.modified` CDEvent. */
export function waveEvent(projectId: string, t: WaveTransition): HubEvent {
  if (t.to === 'waiting') throw new RangeError('a wave falling back to waiting is not announced');
  const wave: RolloutWave = { index: t.wave, groups: t.groups, state: t.to, previous: t.from, total: t.total, healthy: t.healthy, progressing: t.progressing, pending: t.pending, failed: t.failed };
  const groups = t.groups.length > 0 ? t.groups.join(', ') : 'unlisted groups';
  return {
    projectId,
    clusterName: null,
    type: t.to === 'failed' || t.to === 'rolledBack' ? 'Warning' : 'Normal',
    reason: REASONS[t.to],
    message: `wave ${t.wave} (${groups}) is ${WORDS[t.to]} on revision ${t.revision} (was ${WORDS[t.from]}): ${countsPhrase(t)}`,
    revision: t.revision,
    cdevent: 'environment.modified',
    wave,
  };
}
