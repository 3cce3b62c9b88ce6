// `flotilla project suspend NAME`
import type { Command } from 'commander';
import { examples, seg, type Cli } from '../../cli';
import { notFound } from './not-found';

export function registerProjectSuspend(parent: Command, cli: Cli): void {
  const cmd = parent
    .command('suspend <name>')
    .description('stop reconciling the Project on every cluster (what it applied stays)')
    .action(async (name: string) => {
      await cli.hub().request('POST', `/projects/${seg(name)}/suspend`, notFound(name));
      cli.io.out.write(`project/${name} suspended\n`);
    });
  examples(cmd, ['flotilla project suspend shop']);
}
