// `flotilla cluster get NAME`
import type { Command } from 'commander';
import { examples, seg, withOutput, type Cli } from '../../cli';
import type { Cluster } from '../../hub/types';
import { printData, printTable } from '../../output/format';
import { notFound } from './not-found';
import { clusterHeaders, clusterRow } from './list';

export function registerClusterGet(parent: Command, cli: Cli): void {
  const cmd = withOutput(parent.command('get <name>').description('show one cluster')).action(async (name: string, opts: { output?: string }) => {
    const format = cli.format(opts);
    const c = await cli.hub().get<Cluster>(`/clusters/${seg(name)}`, notFound(name));
    if (printData(cli.io, format, c)) return;
    printTable(cli.io, clusterHeaders(true), [clusterRow(cli, c, true)], '');
    if (c.status.error) cli.io.out.write(`\nlast check failed: ${c.status.error}\n`);
    for (const w of c.status.warnings) cli.io.out.write(`warning: ${w}\n`);
  });
  examples(cmd, ['flotilla cluster get prod-eu', 'flotilla cluster get prod-eu -o yaml']);
}
