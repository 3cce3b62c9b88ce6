// `flotilla project reconcile NAME [--cluster C]` on the hub, or with
// --kube-context on a standalone cluster (the requestedAt annotation).
import type { Command } from 'commander';
import { examples, seg, type Cli } from '../../cli';
import { UsageError } from '../../errors';
import { annotateProject, isStandalone, REQUESTED_AT, standaloneOptions, type StandaloneFlags } from '../../local/standalone';
import { notFound } from './not-found';

export function registerProjectReconcile(parent: Command, cli: Cli): void {
  const cmd = standaloneOptions(
    parent.command('reconcile <name>').description('ask the hub (or a standalone agent) to reconcile the Project now, everywhere or on one cluster').option('--cluster <name>', 'only this cluster (hub)'),
  ).action(async (name: string, opts: StandaloneFlags & { cluster?: string }) => {
    if (isStandalone(opts)) {
      if (opts.cluster) throw new UsageError('--cluster is for the hub; a standalone cluster is named by --kube-context');
      await annotateProject(opts, cli.io.env, name, { [REQUESTED_AT]: cli.io.now().toISOString() });
      cli.io.out.write(`project/${name} in ${opts.namespace ?? 'default'}: reconcile requested from the agent\n`);
      return;
    }
    const res = await cli.hub().request<{ requested: number }>('POST', `/projects/${seg(name)}/reconcile`, {
      query: { cluster: opts.cluster },
      // With --cluster the 404 may be about the Target: the hub's own message names which.
      ...(opts.cluster ? { notFoundHint: `run \`flotilla project status ${name}\` to see its clusters` } : notFound(name)),
    });
    cli.io.out.write(`project/${name}: reconcile requested on ${res.body.requested} target${res.body.requested === 1 ? '' : 's'}; follow it with \`flotilla project status ${name} --watch\`\n`);
  });
  examples(cmd, ['flotilla project reconcile shop', 'flotilla project reconcile shop --cluster prod-eu', 'flotilla project reconcile shop --kube-context edge-1 -n shop   # standalone agent']);
}
