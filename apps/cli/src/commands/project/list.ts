// `flotilla project list`
import type { Command } from 'commander';
import { examples, withOutput, type Cli } from '../../cli';
import type { Project } from '../../hub/types';
import { painter, printData, printTable } from '../../output/format';
import { ago } from '../../output/time';

export function registerProjectList(parent: Command, cli: Cli): void {
  const cmd = withOutput(parent.command('list').alias('ls').description('list the Projects on the hub with their readiness'))
    .option('--suspended <bool>', 'only suspended (true) or active (false) Projects')
    .action(async (opts: { output?: string; suspended?: string }) => {
      const format = cli.format(opts);
      const items = await cli.hub().all<Project>('/projects', { suspended: opts.suspended });
      if (printData(cli.io, format, items)) return;
      const wide = format === 'wide';
      const p = painter(cli.io);
      const now = cli.io.now();
      const rows = items.map((x) => {
        const ready = `${x.status.ready}/${x.status.targets}`;
        const state = x.status.deleting ? p.yellow('Deleting') : x.suspend ? p.yellow('Suspended') : x.status.ready === x.status.targets ? p.green('Ready') : p.yellow('Progressing');
        const phases = Object.entries(x.status.phases).map(([k, v]) => `${k}=${v}`).join(',') || '-';
        return [x.name, x.namespace, state, ready, `${x.source.repository}:${x.source.tag}`, ago(x.updatedAt, now), ...(wide ? [phases, x.interval, String(x.generation)] : [])];
      });
      printTable(cli.io, ['NAME', 'NAMESPACE', 'STATE', 'READY', 'SOURCE', 'UPDATED', ...(wide ? ['PHASES', 'INTERVAL', 'GENERATION'] : [])], rows, 'no Projects: create one with `flotilla project apply -f`');
    });
  examples(cmd, ['flotilla project list', 'flotilla project list --suspended true', 'flotilla project list -o wide']);
}
