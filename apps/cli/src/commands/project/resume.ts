// `flotilla project resume NAME`
import type { Command } from 'commander';
import { examples, seg, type Cli } from '../../cli';
import { notFound } from './not-found';

export function registerProjectResume(parent: Command, cli: Cli): void {
  const cmd = parent
    .command('resume <name>')
    .description('reconcile a suspended Project again (it catches up at once)')
    .action(async (name: string) => {
      await cli.hub().request('POST', `/projects/${seg(name)}/resume`, notFound(name));
      cli.io.out.write(`project/${name} resumed\n`);
    });
  examples(cmd, ['flotilla project resume shop']);
}
