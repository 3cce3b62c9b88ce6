// `flotilla project resume NAME`, on the hub or (--kube-context) a standalone cluster.
import type { Command } from 'commander';
import { examples, seg, type Cli } from '../../cli';
import { annotateProject, isStandalone, standaloneOptions, SUSPEND, type StandaloneFlags } from '../../local/standalone';
import { notFound } from './not-found';

export function registerProjectResume(parent: Command, cli: Cli): void {
  const cmd = standaloneOptions(parent.command('resume <name>').description('reconcile a suspended Project again (it catches up at once)')).action(async (name: string, opts: StandaloneFlags) => {
    // Removing the annotation (not setting "false") leaves the resource as it was before suspend.
    if (isStandalone(opts)) await annotateProject(opts, cli.io.env, name, { [SUSPEND]: null });
    else await cli.hub().request('POST', `/projects/${seg(name)}/resume`, notFound(name));
    cli.io.out.write(`project/${name} resumed\n`);
  });
  examples(cmd, ['flotilla project resume shop', 'flotilla project resume shop --kube-context edge-1 -n shop   # standalone agent']);
}
