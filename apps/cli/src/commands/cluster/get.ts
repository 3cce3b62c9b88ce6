// `flotilla cluster get NAME`
import type { Command } from 'commander';
import { examples, seg, withOutput, type Cli } from '../../cli';
import type { Cluster } from '../../hub/types';
import { printData, printTable } from '../../output/format';
import { ago } from '../../output/time';
import { notFound } from './not-found';
import { clusterHeaders, clusterRow } from './list';

export function registerClusterGet(parent: Command, cli: Cli): void {
  const cmd = withOutput(parent.command('get <name>').description('show one cluster')).action(async (name: string, opts: { output?: string }) => {
    const format = cli.format(opts);
    const c = await cli.hub().get<Cluster>(`/clusters/${seg(name)}`, notFound(name));
    if (printData(cli.io, format, c)) return;
    printTable(cli.io, clusterHeaders(true), [clusterRow(cli, c, true)], '');
    if (c.agent) cli.io.out.write(`\n${agentLine(c.agent, cli.io.now())}\n`);
    // outside the hub's version skew policy: the hub says why and what to do
    if (c.agent?.registered && c.agent.version && c.agent.supported === false && c.agent.skew) cli.io.out.write(`warning: ${c.agent.skew}\n`);
    if (c.status.error) cli.io.out.write(`\nlast check failed: ${c.status.error}\n`);
    for (const w of c.status.warnings) cli.io.out.write(`warning: ${w}\n`);
  });
  examples(cmd, ['flotilla cluster get prod-eu', 'flotilla cluster get prod-eu -o yaml']);
}

function agentLine(a: NonNullable<Cluster['agent']>, now: Date): string {
  if (!a.registered) return 'agent: never connected (flotilla cluster install-agent NAME | kubectl apply -f -)';
  const details = [a.version && `version ${a.version}`, a.lastHeartbeat && `last heartbeat ${ago(a.lastHeartbeat, now)}`].filter(Boolean).join(', ');
  return `agent: ${a.connected ? 'connected' : 'disconnected'}${a.since ? ` ${ago(a.since, now)}` : ''}${details ? ` (${details})` : ''}`;
}
