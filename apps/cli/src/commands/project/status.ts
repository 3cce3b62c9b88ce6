// `flotilla project status NAME [--watch]`. The watch polls the API and
// redraws in place on a terminal (elsewhere it prints a new frame only when
// something changed); Ctrl-C ends it with exit code 0.
import type { Command } from 'commander';
import { examples, seg, withOutput, type Cli } from '../../cli';
import { UsageError } from '../../errors';
import type { Project, Target } from '../../hub/types';
import { printData } from '../../output/format';
import { notFound } from './not-found';
import { renderStatus } from './status-view';
import { isStandalone, readProjects, standaloneOptions, type StandaloneFlags } from '../../local/standalone';
import { renderResourceStatus } from './standalone-view';

interface StatusOptions extends StandaloneFlags {
  output?: string;
  watch?: boolean;
  interval: string;
}

export function registerProjectStatus(parent: Command, cli: Cli): void {
  const cmd = standaloneOptions(withOutput(parent.command('status <name>').description('per cluster: phase, revision, conditions and next run; per instance with -o wide'))
    .option('-w, --watch', 'keep redrawing as the hub reports (Ctrl-C to stop)')
    .option('--interval <seconds>', 'how often --watch asks the hub', '2'))
    .action((name: string, opts: StatusOptions) => status(cli, name, opts));
  examples(cmd, ['flotilla project status shop', 'flotilla project status shop --kube-context edge-1 -n shop   # standalone agent', 'flotilla project status shop -o wide --watch', 'flotilla project status shop -o json | jq .targets[].phase']);
}

async function fetchStatus(cli: Cli, name: string): Promise<{ project: Project; targets: Target[] }> {
  const hub = cli.hub();
  const project = await hub.get<Project>(`/projects/${seg(name)}`, notFound(name));
  const targets = await hub.all<Target>(`/projects/${seg(name)}/targets`);
  return { project, targets };
}

async function status(cli: Cli, name: string, opts: StatusOptions): Promise<void> {
  const format = cli.format(opts);
  const seconds = Number(opts.interval);
  if (!(seconds >= 0.2)) throw new UsageError(`--interval "${opts.interval}" must be a number of seconds, at least 0.2`);
  if (isStandalone(opts)) {
    if (opts.watch) throw new UsageError('--watch is for the hub; on a standalone cluster use `kubectl get projects -w`');
    const [resource] = await readProjects(opts, cli.io.env, name);
    if (!printData(cli.io, format, resource)) cli.io.out.write(renderResourceStatus(cli, resource, format === 'wide'));
    return;
  }
  if (!opts.watch) {
    const s = await fetchStatus(cli, name);
    if (!printData(cli.io, format, s)) cli.io.out.write(renderStatus(cli, s.project, s.targets, format === 'wide'));
    return;
  }
  if (format === 'json' || format === 'yaml') throw new UsageError('--watch draws tables: leave out -o json/yaml, or poll without --watch');
  const tty = Boolean(cli.io.out.isTTY);
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let previous = '';
  let lines = 0;
  try {
    for (;;) {
      const s = await fetchStatus(cli, name);
      const frame = renderStatus(cli, s.project, s.targets, format === 'wide');
      if (tty) {
        // Lines are clipped to the terminal width so none wraps and the count of lines to go back up stays true.
        const width = cli.io.out.columns || 200; // 0 on a pseudo-terminal without a size
        const clipped = frame.split('\n').map((l) => clip(l, width)).join('\n');
        // Up to the first line of the last frame, clear to the end of the screen, draw again.
        cli.io.out.write(`${lines ? `\x1b[${lines}A\x1b[0J` : ''}${clipped}`);
        lines = clipped.split('\n').length - 1;
      } else if (stripTimes(frame) !== stripTimes(previous)) {
        cli.io.out.write(`${previous ? '\n' : ''}${frame}`);
      }
      previous = frame;
      let handle: NodeJS.Timeout | undefined;
      const tick = new Promise<'tick'>((resolve) => (handle = setTimeout(() => resolve('tick'), seconds * 1000)));
      const why = await Promise.race([tick, stopped.then(() => 'stop' as const)]);
      clearTimeout(handle);
      if (why === 'stop') return;
    }
  } finally {
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
  }
}

/** Relative times change every second; a new frame off a terminal is only worth printing when something else did. */
function stripTimes(frame: string): string {
  // \b: a time starts a word, so a run of digits is tried once, not from each of its digits
  return frame.replace(/(in )?\b\d+[smhd](\d+[sm])?( ago)?/g, '');
}

/** At most `width` visible characters; colour codes do not count. */
function clip(line: string, width: number): string {
  let visible = 0;
  let out = '';
  // eslint-disable-next-line no-control-regex -- colour codes are kept whole
  for (const part of line.split(/(\x1b\[[0-9;]*m)/)) {
    if (part.startsWith('\x1b[')) {
      out += part;
      continue;
    }
    const room = Math.max(0, width - 1 - visible);
    out += part.slice(0, room);
    visible += Math.min(part.length, room);
  }
  return out;
}
