// `flotilla cluster delete NAME [--force]`
import type { Command } from 'commander';
import { examples, seg, type Cli } from '../../cli';
import { CliError } from '../../errors';
import { notFound } from './not-found';

export function registerClusterDelete(parent: Command, cli: Cli): void {
  const cmd = parent
    .command('delete <name>')
    .description('remove a cluster from the fleet (what Projects applied there stays)')
    .option('--force', 'even while Projects target it')
    .action(async (name: string, opts: { force?: boolean }) => {
      await cli
        .hub()
        .request('DELETE', `/clusters/${seg(name)}`, { query: { force: opts.force ? 'true' : undefined }, ...notFound(name) })
        .catch((err: unknown) => {
          if (err instanceof CliError && !opts.force && /target/i.test(err.message)) throw new CliError(`cluster "${name}" is still targeted: ${err.message}`, 'retarget the Projects first, or pass --force');
          throw err;
        });
      cli.io.out.write(`cluster/${name} deleted\n`);
    });
  examples(cmd, ['flotilla cluster delete dev', 'flotilla cluster delete dev --force']);
}
