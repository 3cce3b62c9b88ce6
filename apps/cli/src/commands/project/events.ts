// `flotilla project events NAME`: the hub's events of a Project, oldest first
// like kubectl, fetched newest first by following the API's `continue` tokens.
import type { Command } from 'commander';
import { examples, seg, withOutput, type Cli } from '../../cli';
import { UsageError } from '../../errors';
import { readProjectEvents } from '../../local/standalone-events';
import { isStandalone, standaloneOptions, type StandaloneFlags } from '../../local/standalone';
import type { HubEvent } from '../../hub/types';
import { phaseColour, printData, printTable, truncate } from '../../output/format';
import { ago } from '../../output/time';
import { notFound } from './not-found';

export function registerProjectEvents(parent: Command, cli: Cli): void {
  const cmd = standaloneOptions(withOutput(parent.command('events <name>').description("the Project's events, across clusters or for one (or on a standalone cluster)")))
    .option('--cluster <name>', 'only the events of this cluster (hub)')
    .option('--limit <n>', 'at most this many of the newest events', '100')
    .action(async (name: string, opts: StandaloneFlags & { output?: string; cluster?: string; limit: string }) => {
      const format = cli.format(opts);
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit "${opts.limit}" must be a positive whole number`);
      if (isStandalone(opts)) {
        if (opts.cluster) throw new UsageError('--cluster is for the hub; a standalone cluster is named by --kube-context');
        const events = await readProjectEvents(opts, cli.io.env, name, limit);
        if (printData(cli.io, format, events)) return;
        const now = cli.io.now();
        const rows = events.map((e) => [ago(e.time, now), phaseColour(cli.io, e.type), e.reason, ...(format === 'wide' ? [e.instance ?? '-', String(e.count)] : []), truncate(e.message, format === 'wide' ? 1000 : 100)]);
        const headers = ['LAST SEEN', 'TYPE', 'REASON', ...(format === 'wide' ? ['INSTANCE', 'COUNT'] : []), 'MESSAGE'];
        printTable(cli.io, headers, rows, `no events for project "${name}" in ${opts.namespace ?? 'default'} (events expire after an hour)`);
        return;
      }
      const hub = cli.hub();
      await hub.get(`/projects/${seg(name)}`, notFound(name));
      const events = (await hub.history<HubEvent>(`/projects/${seg(name)}/events`, limit, { cluster: opts.cluster })).reverse();
      if (printData(cli.io, format, events)) return;
      const now = cli.io.now();
      const width = format === 'wide' ? 1000 : 100;
      printTable(cli.io, ['LAST SEEN', 'CLUSTER', 'TYPE', 'REASON', 'MESSAGE'], events.map((e) => [ago(e.time, now), e.cluster ?? '-', phaseColour(cli.io, e.type), e.reason, truncate(e.message, width)]), `no events for project "${name}"`);
    });
  examples(cmd, ['flotilla project events shop', 'flotilla project events shop --cluster prod-eu --limit 500', 'flotilla project events shop -o json', 'flotilla project events shop --kube-context edge-1 -n shop   # standalone agent']);
}
