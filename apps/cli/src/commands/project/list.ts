// `flotilla project list`
import type { Command } from 'commander';
import { examples, withOutput, type Cli } from '../../cli';
import type { Project } from '../../hub/types';
import { painter, printData, printTable } from '../../output/format';
import { ago } from '../../output/time';
import { isStandalone, readProjects, standaloneOptions, type StandaloneFlags } from '../../local/standalone';
import { renderResourceList } from './standalone-view';

export function registerProjectList(parent: Command, cli: Cli): void {
  const cmd = standaloneOptions(withOutput(parent.command('list').alias('ls').description('list the Projects on the hub (or on a standalone cluster) with their readiness')))
    .option('--suspended <bool>', 'only suspended (true) or active (false) Projects')
    .action(async (opts: StandaloneFlags & { output?: string; suspended?: string }) => {
      const format = cli.format(opts);
      if (isStandalone(opts)) {
        const resources = await readProjects(opts, cli.io.env);
        if (!printData(cli.io, format, resources)) cli.io.out.write(renderResourceList(cli, resources));
        return;
      }
      const items = await cli.hub().all<Project>('/projects', { suspended: opts.suspended });
      if (printData(cli.io, format, items)) return;
      const wide = format === 'wide';
      const p = painter(cli.io);
      const now = cli.io.now();
      const rows = items.map((x) => {
        const ready = `${x.status.ready}/${x.status.targets}`;
        const state = stateOf(x);
        const phases = Object.entries(x.status.phases).map(([k, v]) => `${k}=${v}`).join(',') || '-';
        return [x.name, x.namespace, state === 'Ready' ? p.green(state) : p.yellow(state), ready, `${x.source.repository}:${x.source.tag}`, ago(x.updatedAt, now), ...(wide ? [phases, x.interval, String(x.generation)] : [])];
      });
      printTable(cli.io, ['NAME', 'NAMESPACE', 'STATE', 'READY', 'SOURCE', 'UPDATED', ...(wide ? ['PHASES', 'INTERVAL', 'GENERATION'] : [])], rows, 'no Projects: create one with `flotilla project apply -f`');
    });
  examples(cmd, ['flotilla project list', 'flotilla project list --suspended true', 'flotilla project list -o wide', 'flotilla project list --kube-context edge-1   # standalone agent, all namespaces']);
}

/** A Project's state in the list: green `Ready` only when every Target is applied and healthy. */
function stateOf(x: Project): string {
  if (x.status.deleting) return 'Deleting';
  if (x.suspend) return 'Suspended';
  if (x.status.ready !== x.status.targets) return 'Progressing';
  return x.status.unhealthy ? 'Unhealthy' : 'Ready';
}
