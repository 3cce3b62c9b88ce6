// `flotilla cluster check NAME`: the hub connects again; exit 1 when it cannot.
import type { Command } from 'commander';
import { examples, seg, withOutput, type Cli } from '../../cli';
import { CliError } from '../../errors';
import type { Cluster } from '../../hub/types';
import { printData } from '../../output/format';
import { notFound } from './not-found';

export function registerClusterCheck(parent: Command, cli: Cli): void {
  const cmd = withOutput(parent.command('check <name>').description('have the hub connect to the cluster again (GET /version)')).action(async (name: string, opts: { output?: string }) => {
    const c = (await cli.hub().request<Cluster>('POST', `/clusters/${seg(name)}/check`, notFound(name))).body;
    if (!printData(cli.io, cli.format(opts), c.status) && c.status.reachable) cli.io.out.write(`cluster/${c.name} reachable: Kubernetes ${c.status.version}\n`);
    for (const w of c.status.warnings) cli.io.err.write(`warning: ${w}\n`);
    if (!c.status.reachable) throw new CliError(`cluster "${c.name}" is not reachable: ${c.status.error ?? 'no answer'}`, 'check its endpoint and credentials (`flotilla cluster update`)');
  });
  examples(cmd, ['flotilla cluster check prod-eu']);
}
