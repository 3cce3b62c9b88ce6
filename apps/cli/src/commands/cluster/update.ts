// `flotilla cluster update NAME`: group, labels, endpoint and credentials.
import type { Command } from 'commander';
import { examples, keyValue, seg, type Cli } from '../../cli';
import { UsageError } from '../../errors';
import type { Cluster } from '../../hub/types';
import { notFound } from './not-found';
import { connectionBody, connectionOptions, type ConnectionFlags } from './credentials';

interface UpdateOptions extends ConnectionFlags {
  group?: string;
  label?: Record<string, string>;
}

export function registerClusterUpdate(parent: Command, cli: Cli): void {
  const cmd = connectionOptions(
    parent
      .command('update <name>')
      .description('change a cluster: group, labels (replaced as a whole), endpoint or credentials')
      .option('--group <group>', 'new group')
      .option('--label <key=value>', 'labels, replacing all current ones (repeatable)', keyValue),
  ).action(async (name: string, opts: UpdateOptions) => {
    const conn = connectionBody(opts, cli.io.env);
    const body = { group: opts.group, labels: opts.label, endpoint: conn.endpoint, credentials: conn.credentials };
    if (Object.values(body).every((v) => v === undefined)) throw new UsageError('nothing to change', 'give --group, --label, --kubeconfig or --server with credentials');
    const c = (await cli.hub().request<Cluster>('PATCH', `/clusters/${seg(name)}`, { body, ...notFound(name) })).body;
    cli.io.out.write(`cluster/${c.name} updated\n`);
  });
  examples(cmd, ['flotilla cluster update prod-eu --group production', 'flotilla cluster update prod-eu --label env=prod --label region=eu', 'flotilla cluster update dev --kubeconfig new.kubeconfig']);
}
