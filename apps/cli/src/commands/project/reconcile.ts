// `flotilla project reconcile NAME [--cluster C]`
import type { Command } from 'commander';
import { examples, seg, type Cli } from '../../cli';
import { notFound } from './not-found';

export function registerProjectReconcile(parent: Command, cli: Cli): void {
  const cmd = parent
    .command('reconcile <name>')
    .description('ask the hub to reconcile the Project now, everywhere or on one cluster')
    .option('--cluster <name>', 'only this cluster')
    .action(async (name: string, opts: { cluster?: string }) => {
      const res = await cli.hub().request<{ requested: number }>('POST', `/projects/${seg(name)}/reconcile`, {
        query: { cluster: opts.cluster },
        // With --cluster the 404 may be about the Target: the hub's own message names which.
        ...(opts.cluster ? { notFoundHint: `run \`flotilla project status ${name}\` to see its clusters` } : notFound(name)),
      });
      cli.io.out.write(`project/${name}: reconcile requested on ${res.body.requested} target${res.body.requested === 1 ? '' : 's'}; follow it with \`flotilla project status ${name} --watch\`\n`);
    });
  examples(cmd, ['flotilla project reconcile shop', 'flotilla project reconcile shop --cluster prod-eu']);
}
