// `flotilla project delete NAME [--orphan] [--wait]`. With its instances (the
// default) the hub answers 202 and the Project stays readable while every
// Target prunes what it applied; --wait follows that until it is gone.
import type { Command } from 'commander';
import { examples, seg, type Cli } from '../../cli';
import { CliError, UsageError } from '../../errors';
import type { Project } from '../../hub/types';
import { notFound } from './not-found';
import { withProgress } from '../../output/progress';
import { deleteStandaloneProject } from '../../local/standalone-delete';
import { isStandalone, standaloneOptions, type StandaloneFlags } from '../../local/standalone';

interface DeleteOptions extends StandaloneFlags {
  orphan?: boolean;
  wait?: boolean;
  timeout: string;
}

export function registerProjectDelete(parent: Command, cli: Cli): void {
  const cmd = standaloneOptions(parent.command('delete <name>'))
    .description('delete the Project and, unless --orphan, what it applied on every cluster (or on a standalone cluster)')
    .option('--orphan', 'leave the instances on the clusters')
    .option('--wait', 'wait until every cluster has pruned and the Project is gone')
    .option('--timeout <seconds>', 'how long --wait waits', '300')
    .action((name: string, opts: DeleteOptions) => remove(cli, name, opts));
  examples(cmd, ['flotilla project delete shop --wait', 'flotilla project delete shop --orphan', 'flotilla project delete shop --kube-context edge-1 -n shop --wait   # standalone agent']);
}

async function remove(cli: Cli, name: string, opts: DeleteOptions): Promise<void> {
  const timeoutS = Number(opts.timeout);
  if (!(timeoutS > 0)) throw new UsageError(`--timeout "${opts.timeout}" must be a number of seconds`);
  if (isStandalone(opts)) return removeStandalone(cli, name, opts, timeoutS);
  const hub = cli.hub();
  const path = `/projects/${seg(name)}`;
  const res = await hub.request<{ state: string }>('DELETE', path, { query: { instances: opts.orphan ? 'orphan' : 'delete' }, ...notFound(name) });
  if (res.body?.state !== 'deleting') {
    cli.io.out.write(`project/${name} deleted${opts.orphan ? ' (instances left on the clusters)' : ''}\n`);
    return;
  }
  if (!opts.wait) {
    cli.io.out.write(`project/${name} deleting: its clusters prune what it applied; \`flotilla project status ${name}\` follows it, or pass --wait\n`);
    return;
  }
  cli.io.err.write(`project/${name} deleting: waiting for its clusters to prune…\n`);
  await withProgress(cli.io, `waiting for project ${name} to be pruned`, async () => {
    const deadline = Date.now() + timeoutS * 1000;
    for (;;) {
      const p = await hub.get<Project>(path).catch((err: unknown) => {
        if (err instanceof CliError && /not found/i.test(err.message)) return undefined;
        throw err;
      });
      if (!p) return;
      if (Date.now() > deadline) throw new CliError(`project "${name}" is still deleting after ${timeoutS}s (${p.status.targets} target(s) left)`, `see \`flotilla project status ${name}\` for what blocks it`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  });
  cli.io.out.write(`project/${name} deleted\n`);
}

async function removeStandalone(cli: Cli, name: string, opts: DeleteOptions, timeoutS: number): Promise<void> {
  const ns = opts.namespace ?? 'default';
  const onDeleting = opts.wait ? () => cli.io.err.write(`project/${name} in ${ns} deleting: waiting for the agent to let it go…\n`) : undefined;
  const del = () => deleteStandaloneProject(opts, cli.io.env, name, { orphan: Boolean(opts.orphan), wait: Boolean(opts.wait), timeoutMs: timeoutS * 1000, onDeleting });
  const gone = opts.wait ? await withProgress(cli.io, `waiting for the agent to remove project ${name}`, del) : await del();
  const left = opts.orphan ? ' (instances left in the cluster)' : '';
  if (gone) cli.io.out.write(`project/${name} in ${ns} deleted${left}\n`);
  else cli.io.out.write(`project/${name} in ${ns} deleting${left}: the agent ${opts.orphan ? 'lets it go' : 'removes its instances first'}; pass --wait to follow it\n`);
}
