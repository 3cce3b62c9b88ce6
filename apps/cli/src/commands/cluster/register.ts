// `flotilla cluster register NAME`: a push cluster from a kubeconfig or flags,
// or an agent cluster (the agent dials the hub).
import type { Command } from 'commander';
import { examples, keyValue, type Cli } from '../../cli';
import { UsageError } from '../../errors';
import type { Cluster } from '../../hub/types';
import { connectionBody, connectionOptions, type ConnectionFlags } from './credentials';

interface RegisterOptions extends ConnectionFlags {
  group?: string;
  label?: Record<string, string>;
  mode: string;
}

export function registerClusterRegister(parent: Command, cli: Cli): void {
  const cmd = connectionOptions(
    parent
      .command('register <name>')
      .description('add a cluster to the fleet: push (the hub applies through the API server) or agent')
      .option('--mode <mode>', 'push or agent', 'push')
      .option('--group <group>', 'cluster group (default: default)')
      .option('--label <key=value>', 'a label (repeatable)', keyValue),
  ).action((name: string, opts: RegisterOptions) => register(cli, name, opts));
  examples(cmd, [
    'flotilla cluster register prod-eu --kubeconfig ~/.kube/config --kube-context prod-eu --group production',
    'flotilla cluster register dev --server https://10.0.0.1:6443 --token-file sa.token --certificate-authority ca.crt',
    'flotilla cluster register edge-1 --mode agent --label region=eu',
  ]);
}

async function register(cli: Cli, name: string, opts: RegisterOptions): Promise<void> {
  if (opts.mode !== 'push' && opts.mode !== 'agent') throw new UsageError(`--mode "${opts.mode}" is neither push nor agent`);
  const conn = connectionBody(opts, cli.io.env);
  if (opts.mode === 'push' && !conn.credentials) throw new UsageError('a push cluster needs a connection', 'give --kubeconfig FILE [--kube-context NAME], or --server with --token-file or a client certificate');
  if (opts.mode === 'agent' && conn.credentials) throw new UsageError('an agent cluster takes no connection flags: the agent dials the hub');
  const body = { name, mode: opts.mode, group: opts.group, labels: opts.label, endpoint: conn.endpoint, credentials: conn.credentials };
  const res = await cli.hub().request<Cluster>('POST', '/clusters', { body });
  const c = res.body;
  const reach = c.status.reachable === true ? `reachable, Kubernetes ${c.status.version}` : c.status.reachable === false ? `NOT reachable: ${c.status.error}` : 'not checked';
  cli.io.out.write(`cluster/${c.name} registered (${c.mode}, group ${c.group}${c.endpoint ? `, ${c.endpoint.server}` : ''}; ${reach})\n`);
  for (const w of c.status.warnings) cli.io.out.write(`warning: ${w}\n`);
  // the token also comes with every install manifest, so it need not be kept from here
  if (c.mode === 'agent') cli.io.out.write(`install the agent in that cluster: flotilla cluster install-agent ${c.name} | kubectl apply -f -\n`);
}
