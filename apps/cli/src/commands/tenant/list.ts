// `flotilla tenant list`
import type { Command } from 'commander';
import { examples, withOutput, type Cli } from '../../cli';
import type { Tenant } from '../../hub/types';
import { printData, printTable } from '../../output/format';

export function registerTenantList(parent: Command, cli: Cli): void {
  const cmd = withOutput(parent.command('list').alias('ls').description('list the tenants (a member sees its own)')).action(async (opts: { output?: string }) => {
    const format = cli.format(opts);
    const items = await cli.hub().all<Tenant>('/tenants');
    if (printData(cli.io, format, items)) return;
    printTable(cli.io, tenantHeaders(), items.map(tenantRow), 'no tenants: create one with `flotilla tenant apply -f FILE`');
  });
  examples(cmd, ['flotilla tenant list', 'flotilla tenant list -o yaml']);
}

export function tenantHeaders(): string[] {
  return ['NAME', 'DESTINATIONS', 'NAMESPACES', 'SERVICE ACCOUNTS', 'REPOSITORIES', 'BOOTSTRAP'];
}

export function tenantRow(t: Tenant): string[] {
  const d = t.destinations;
  const destinations = [...(d.groups ?? []).map((g) => `group=${g}`), ...(d.labelSelector ? [`labels ${JSON.stringify(d.labelSelector)}`] : [])].join(', ') || '(none)';
  const list = (xs: string[]) => xs.join(', ') || '(none)';
  return [t.name, destinations, list(t.namespaces), list(t.serviceAccounts), list(t.repositories), list(t.bootstrapRoles)];
}
