// `flotilla project rollout status|approve|hold|retry|rollback NAME`: a Project's
// rollout wave by wave, and what an operator does to it on the hub.
import type { Command } from 'commander';
import { examples, group, seg, withOutput, type Cli } from '../../cli';
import { UsageError } from '../../errors';
import { printData, table } from '../../output/format';
import { notFound } from './not-found';

export interface RolloutWave {
  index: number;
  groups: string[];
  state: string;
  since?: string;
  soakUntil?: string;
  counts: { total: number; pending: number; progressing: number; healthy: number; failed: number };
  failureBudget: number;
  batchSize: number | null;
  message?: string;
  windowClosed?: string;
}

export interface RolloutView {
  project: string;
  revision: string | null;
  onFailure: string;
  onHold: boolean;
  rolledBack?: { revision: string; wave: number; by: string; at: string };
  windowClosed?: string;
  waves: RolloutWave[];
  actions: Array<{ action: string; revision: string; wave?: number; by: string; at: string }>;
}

/** The rollout as a table of waves, then what holds it and the actions taken. */
export function renderRollout(view: RolloutView): string {
  const lines = [`project/${view.project}: revision ${view.revision ?? '(tag not resolved yet)'}${view.onHold ? ' — ON HOLD until `flotilla project rollout retry`' : ''}`];
  if (view.windowClosed) lines.push(`paused: ${view.windowClosed}; drift correction goes on`);
  if (view.rolledBack) lines.push(`ROLLED BACK from wave ${view.rolledBack.wave} by ${view.rolledBack.by} at ${view.rolledBack.at}; a new revision or \`flotilla project rollout retry\` continues`);
  if (view.waves.length === 0) return `${lines.join('\n')}\nno rollout waves: every cluster moves at once\n`;
  const rows = view.waves.map((w) => [
    String(w.index),
    w.groups.length ? w.groups.join(',') : '(others)',
    w.state,
    `${w.counts.healthy}/${w.counts.total}`,
    String(w.counts.progressing),
    `${w.counts.failed}/${w.failureBudget}`,
    w.batchSize === null ? 'all' : String(w.batchSize),
    w.state === 'soaking' && w.soakUntil ? `until ${w.soakUntil}` : (w.since ?? ''),
  ]);
  lines.push(table(['WAVE', 'GROUPS', 'STATE', 'HEALTHY', 'MOVING', 'FAILED/BUDGET', 'BATCH', 'SINCE'], rows).trimEnd());
  for (const w of view.waves) if (w.windowClosed) lines.push(`wave ${w.index} paused: ${w.windowClosed}`);
  const waiting = view.waves.find((w) => w.message)?.message;
  if (waiting) lines.push(`waiting: ${waiting}`);
  for (const a of view.actions.slice(-5)) lines.push(`${a.at}  ${a.action}${a.wave === undefined ? '' : ` wave ${a.wave}`} by ${a.by} on ${a.revision}`);
  return `${lines.join('\n')}\n`;
}

export function registerProjectRollout(parent: Command, cli: Cli): void {
  const rollout = group(parent, 'rollout', "a Project's rollout on the hub: its waves, approvals, holds and retries");
  const show = async (name: string, opts: { output?: string }, view?: RolloutView) => {
    const data = view ?? (await cli.hub().get<RolloutView>(`/projects/${seg(name)}/rollout`, notFound(name)));
    if (!printData(cli.io, cli.format(opts), data)) cli.io.out.write(renderRollout(data));
  };
  const act = async (name: string, action: string, body: object | undefined, opts: { output?: string }) => {
    const res = await cli.hub().request<RolloutView>('POST', `/projects/${seg(name)}/rollout/${action}`, { ...(body ? { body } : {}), ...notFound(name) });
    await show(name, opts, res.body);
  };

  const status = withOutput(rollout.command('status <name>').description('per wave: its state, healthy, moving and failed clusters, batch and since when')).action((name: string, opts: { output?: string }) => show(name, opts));
  examples(status, ['flotilla project rollout status shop', 'flotilla project rollout status shop -o json | jq .waves[].state']);

  const approve = withOutput(rollout.command('approve <name>').description('approve the wave awaiting approval (or --wave N) for the current revision').option('--wave <index>', 'the wave to approve')).action(
    (name: string, opts: { output?: string; wave?: string }) => {
      const wave = opts.wave === undefined ? undefined : Number(opts.wave);
      if (wave !== undefined && !(Number.isInteger(wave) && wave >= 0)) throw new UsageError(`--wave "${opts.wave}" is not a wave index`, 'see the WAVE column of `flotilla project rollout status`');
      return act(name, 'approve', wave === undefined ? {} : { wave }, opts);
    },
  );
  examples(approve, ['flotilla project rollout approve shop', 'flotilla project rollout approve shop --wave 2']);

  const hold = withOutput(rollout.command('hold <name>').description('stop clusters from starting the revision (those on it stay) until a retry')).action((name: string, opts: { output?: string }) => act(name, 'hold', undefined, opts));
  examples(hold, ['flotilla project rollout hold shop']);

  const rollback = withOutput(rollout.command('rollback <name>').description('take the failing wave (else the last wave reached) back to the last revision each cluster was Ready and Healthy on')).action((name: string, opts: { output?: string }) => act(name, 'rollback', undefined, opts));
  examples(rollback, ['flotilla project rollout rollback shop']);

  const retry = withOutput(rollout.command('retry <name>').description('lift a hold or a rollback and run the clusters that failed on the revision again now')).action((name: string, opts: { output?: string }) => act(name, 'retry', undefined, opts));
  examples(retry, ['flotilla project rollout retry shop']);
}
