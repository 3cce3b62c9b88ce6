// `flotilla project suspend NAME`, on the hub or (--kube-context) a standalone cluster.
import type { Command } from 'commander';
import { examples, seg, type Cli } from '../../cli';
import { annotateProject, isStandalone, standaloneOptions, SUSPEND, type StandaloneFlags } from '../../local/standalone';
import { notFound } from './not-found';

export function registerProjectSuspend(parent: Command, cli: Cli): void {
  const cmd = standaloneOptions(parent.command('suspend <name>').description('stop reconciling the Project on every cluster (what it applied stays)')).action(
    async (name: string, opts: StandaloneFlags) => {
      if (isStandalone(opts)) await annotateProject(opts, cli.io.env, name, { [SUSPEND]: 'true' });
      else await cli.hub().request('POST', `/projects/${seg(name)}/suspend`, notFound(name));
      cli.io.out.write(`project/${name} suspended\n`);
    },
  );
  examples(cmd, ['flotilla project suspend shop', 'flotilla project suspend shop --kube-context edge-1 -n shop   # standalone agent']);
}
