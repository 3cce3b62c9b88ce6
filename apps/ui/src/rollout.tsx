// The rollout of a Project's current revision as a pipeline of waves, from
// GET /api/v1/projects/{name}/rollout, with the operator's actions on it.
// States carry words and a symbol besides their colour.

import { useEffect, useState } from 'preact/hooks';
import { canOperate } from './actions';
import { apiCall, path } from './api';
import { relativeTime, shortRevision } from './format';
import type { Role, RolloutAction, RolloutView, WaveState, WaveView } from './types';

const WAVE_STATE: Record<WaveState, { label: string; symbol: string }> = {
  waiting: { label: 'Waiting', symbol: '○' },
  awaitingApproval: { label: 'Awaiting approval', symbol: '◆' },
  progressing: { label: 'Progressing', symbol: '↻' },
  soaking: { label: 'Soaking', symbol: '◔' },
  done: { label: 'Done', symbol: '✓' },
  failed: { label: 'Failed', symbol: '✕' },
  rolledBack: { label: 'Rolled back', symbol: '↶' },
};

const ACTION_LABEL: Record<RolloutAction['action'], string> = { approve: 'Approved', hold: 'Held', retry: 'Retried', rollback: 'Rolled back' };
const ACTION_VERB: Record<RolloutAction['action'], string> = { approve: 'Approve', hold: 'Hold', retry: 'Retry', rollback: 'Roll back' };

/** How many actions the page lists, newest first (the API keeps the last 50). */
const ACTIONS_SHOWN = 5;

export function WaveStateBadge({ state }: { state: WaveState }) {
  const s = WAVE_STATE[state];
  return (
    <span class={`state wave-${state}`}>
      <span aria-hidden="true">{s.symbol}</span> {s.label}
    </span>
  );
}

const waveName = (w: WaveView) => `Wave ${w.index}`;
const groupsOf = (w: WaveView) => (w.groups.length > 0 ? w.groups.join(', ') : 'every other group');

/** Healthy, progressing, failed and pending as one bar; its label reads the numbers. */
function WaveProgress({ wave }: { wave: WaveView }) {
  const { total, healthy, progressing, failed, pending } = wave.counts;
  const parts = [
    ['healthy', healthy],
    ['progressing', progressing],
    ['failed', failed],
    ['pending', pending],
  ] as const;
  const summary = `${healthy} healthy, ${progressing} progressing, ${failed} failed, ${pending} pending of ${total}`;
  return (
    <>
      <div class="segments" role="img" aria-label={`${waveName(wave)} progress: ${summary}`}>
        {parts.map(([kind, n]) => n > 0 && <span key={kind} class={`segment segment-${kind}`} style={{ flexGrow: n }} />)}
      </div>
      <p class="counts">
        <strong>{healthy}</strong> of {total} healthy
        {progressing > 0 && <> · {progressing} progressing</>}
        {failed > 0 && <> · <span class="error">{failed} failed</span></>}
        {pending > 0 && <> · {pending} pending</>}
      </p>
    </>
  );
}

function Wave({ wave, operator, busy, act }: { wave: WaveView; operator: boolean; busy: boolean; act: (action: 'approve', wave: number) => void }) {
  const headingId = `wave-${wave.index}-title`;
  return (
    <li class={`wave wave-step-${wave.state}`} aria-labelledby={headingId}>
      <h4 id={headingId}>
        {waveName(wave)}: {groupsOf(wave)}
      </h4>
      <WaveStateBadge state={wave.state} />
      {wave.since && (
        <span class="muted">
          {' '}
          since <time dateTime={wave.since} title={wave.since}>{relativeTime(wave.since)}</time>
        </span>
      )}
      <WaveProgress wave={wave} />
      <dl class="wave-facts">
        {wave.soakUntil && wave.state === 'soaking' && (
          <>
            <dt>Soak ends</dt>
            <dd>
              <time dateTime={wave.soakUntil} title={wave.soakUntil}>{relativeTime(wave.soakUntil)}</time>
            </dd>
          </>
        )}
        <dt>Failure budget</dt>
        <dd>{wave.failureBudget}</dd>
        <dt>Batch size</dt>
        <dd>{wave.batchSize ?? 'all'}</dd>
      </dl>
      {/* a message about the closed window is said below, once */}
      {wave.message && !(wave.windowClosed && wave.message.endsWith(wave.windowClosed)) && (wave.state === 'waiting' || wave.state === 'awaitingApproval') && <p class="wave-message">{wave.message}</p>}
      {wave.windowClosed && (
        <p class="wave-message">
          <span aria-hidden="true">◷</span> Window closed: {wave.windowClosed}. Its clusters start no new revision.
        </p>
      )}
      {operator && wave.state === 'awaitingApproval' && (
        <button type="button" class="primary" disabled={busy} onClick={() => act('approve', wave.index)} aria-label={`Approve ${waveName(wave)}`}>
          Approve
        </button>
      )}
    </li>
  );
}

/**
 * The pipeline with its banners, last actions and (operators only; the API
 * refuses viewers anyway) approve, hold, retry and roll back. An action's
 * answer is the new rollout, shown at once; the live stream reloads it too.
 */
export function RolloutPipeline({ token, role, rollout }: { token: string; role: Role; rollout: RolloutView }) {
  const [answered, setAnswered] = useState<RolloutView | undefined>();
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState('');
  const [confirming, setConfirming] = useState(false);
  // a reload from the live stream is newer than an action's answer
  useEffect(() => setAnswered(undefined), [rollout]);
  const view = answered ?? rollout;
  const operator = canOperate(role);

  const act = async (action: 'approve' | 'hold' | 'retry' | 'rollback', wave?: number) => {
    setBusy(true);
    setMessage('');
    setConfirming(false);
    const label = action === 'approve' ? `Approve wave ${wave}` : ACTION_VERB[action];
    try {
      setAnswered(await apiCall<RolloutView>(token, 'POST', path`/api/v1/projects/${view.project}/rollout/` + action, action === 'approve' ? { wave } : undefined));
      setMessage(`${label}: done`);
    } catch (err) {
      setMessage(`${label} failed: ${(err as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  const recent = view.actions.slice(-ACTIONS_SHOWN).reverse();
  // the last wave takes the groups no wave names; when there are none it holds no cluster and says nothing
  const shown = view.waves.filter((w) => w.groups.length > 0 || w.counts.total > 0);
  return (
    <section class="rollout" aria-labelledby="rollout-title">
      <h3 id="rollout-title">Rollout</h3>
      <p>
        Revision <code title={view.revision ?? ''}>{shortRevision(view.revision)}</code>; on failure: {view.onFailure}
      </p>
      {view.onHold && (
        <p class="banner banner-hold" role="status">
          <span aria-hidden="true">❚❚</span> On hold: no cluster starts this revision and no wave opens until a retry.
        </p>
      )}
      {view.windowClosed && (
        <p class="banner banner-window" role="status">
          <span aria-hidden="true">◷</span> Window closed: {view.windowClosed}. No cluster starts this revision; drift correction goes on.
        </p>
      )}
      {view.rolledBack && (
        <p class="banner banner-rolledback" role="status">
          <span aria-hidden="true">↶</span> Rolled back from wave {view.rolledBack.wave} by {view.rolledBack.by}{' '}
          <time dateTime={view.rolledBack.at} title={view.rolledBack.at}>{relativeTime(view.rolledBack.at)}</time>: its clusters returned to the last revision each was
          Ready and Healthy on, until a retry or a new revision.
        </p>
      )}
      {operator && (
        <div class="actions" aria-label="Rollout actions" role="group">
          <button type="button" disabled={busy || view.onHold} onClick={() => act('hold')}>
            Hold
          </button>
          <button type="button" disabled={busy} onClick={() => act('retry')}>
            Retry
          </button>
          {confirming ? (
            <span class="confirm" role="group" aria-label="Confirm roll back">
              Roll back {shortRevision(view.revision)}?{' '}
              <button type="button" class="danger" disabled={busy} onClick={() => act('rollback')}>
                Confirm roll back
              </button>{' '}
              <button type="button" onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </span>
          ) : (
            <button type="button" disabled={busy || !!view.rolledBack} onClick={() => setConfirming(true)}>
              Roll back…
            </button>
          )}
          <span role="status" class="action-message">
            {message}
          </span>
        </div>
      )}
      <ol class="pipeline" aria-label={`Waves of ${view.project}, in order`}>
        {shown.map((w) => (
          <Wave key={w.index} wave={w} operator={operator} busy={busy} act={act} />
        ))}
      </ol>
      <h4>Last rollout actions</h4>
      {recent.length === 0 ? (
        <p class="muted">None yet.</p>
      ) : (
        <ul class="events rollout-actions">
          {recent.map((a) => (
            <li key={a.at + a.action}>
              <time dateTime={a.at} title={a.at}>
                {relativeTime(a.at)}
              </time>{' '}
              {ACTION_LABEL[a.action]}
              {a.wave !== undefined && (a.action === 'rollback' ? ` from wave ${a.wave}` : ` wave ${a.wave}`)} by <strong>{a.by}</strong> on <code title={a.revision}>{shortRevision(a.revision)}</code>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
