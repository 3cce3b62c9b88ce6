// `flotilla tenant delete NAME`
import type { Command } from 'commander';
import { examples, seg, type Cli } from '../../cli';
import { notFound } from './index';

export function registerTenantDelete(parent: Command, cli: Cli): void {
  const cmd = parent
    .command('delete <name>')
    .description('delete a tenant without Projects; the tokens issued for it stop working')
    .action(async (name: string) => {
      await cli.hub().request('DELETE', `/tenants/${seg(name)}`, notFound(name));
      cli.io.out.write(`tenant/${name} deleted\n`);
    });
  examples(cmd, ['flotilla tenant delete team-a']);
}
