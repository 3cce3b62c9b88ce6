// `flotilla tenant get NAME`
import type { Command } from 'commander';
import { examples, seg, withOutput, type Cli } from '../../cli';
import type { Tenant } from '../../hub/types';
import { printData, printTable } from '../../output/format';
import { notFound } from './index';
import { tenantHeaders, tenantRow } from './list';

export function registerTenantGet(parent: Command, cli: Cli): void {
  const cmd = withOutput(parent.command('get <name>').description('show one tenant')).action(async (name: string, opts: { output?: string }) => {
    const format = cli.format(opts);
    const t = await cli.hub().get<Tenant>(`/tenants/${seg(name)}`, notFound(name));
    if (printData(cli.io, format, t)) return;
    printTable(cli.io, tenantHeaders(), [tenantRow(t)], '');
    if (t.description) cli.io.out.write(`\n${t.description}\n`);
  });
  examples(cmd, ['flotilla tenant get team-a -o yaml']);
}
