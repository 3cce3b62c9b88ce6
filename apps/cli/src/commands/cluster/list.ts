// `flotilla cluster list`
import type { Command } from 'commander';
import { examples, withOutput, type Cli } from '../../cli';
import type { Cluster } from '../../hub/types';
import { phaseColour, printData, printTable } from '../../output/format';
import { ago } from '../../output/time';

export function registerClusterList(parent: Command, cli: Cli): void {
  const cmd = withOutput(parent.command('list').alias('ls').description('list the registered clusters'))
    .option('--group <group>', 'only this group')
    .option('--mode <mode>', 'only push or agent clusters')
    .option('-l, --selector <selector>', 'label selector, e.g. env=prod,region in (eu,us)')
    .action(async (opts: { output?: string; group?: string; mode?: string; selector?: string }) => {
      const format = cli.format(opts);
      const items = await cli.hub().all<Cluster>('/clusters', { group: opts.group, mode: opts.mode, labelSelector: opts.selector });
      if (printData(cli.io, format, items)) return;
      printTable(cli.io, clusterHeaders(format === 'wide'), items.map((c) => clusterRow(cli, c, format === 'wide')), 'no clusters: register one with `flotilla cluster register`');
    });
  examples(cmd, ['flotilla cluster list', 'flotilla cluster list --group production -o wide', "flotilla cluster list -l 'region in (eu,us)' -o json"]);
}

export function clusterHeaders(wide: boolean): string[] {
  return ['NAME', 'GROUP', 'MODE', 'REACHABLE', 'VERSION', 'TARGETS', 'AGE', ...(wide ? ['SERVER', 'CREDENTIALS', 'LABELS', 'LAST CHECK'] : [])];
}

export function clusterRow(cli: Cli, c: Cluster, wide: boolean): string[] {
  const now = cli.io.now();
  const reach = c.status.reachable === null ? '-' : phaseColour(cli.io, c.status.reachable ? 'True' : 'False');
  const row = [c.name, c.group, c.mode, reach, c.status.version ?? '-', String(c.targets), ago(c.createdAt, now).replace(' ago', '')];
  if (wide) row.push(c.endpoint?.server ?? '-', c.credentials?.kind ?? '-', Object.entries(c.labels).map(([k, v]) => `${k}=${v}`).join(',') || '-', ago(c.status.lastChecked, now));
  return row;
}
