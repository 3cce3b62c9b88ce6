// `flotilla cluster install-agent NAME`: the agent's install manifest from the
// hub, with a fresh bootstrap token, for `| kubectl apply -f -` in that cluster.
import type { Command } from 'commander';
import { examples, seg, type Cli } from '../../cli';
import { notFound } from './not-found';

export function registerClusterInstallAgent(parent: Command, cli: Cli): void {
  const cmd = parent
    .command('install-agent <name>')
    .description("print the agent's install manifest for an agent cluster (a fresh one-time bootstrap token; an earlier unused one stops working)")
    .action(async (name: string) => {
      const yaml = (await cli.hub().request<string>('GET', `/clusters/${seg(name)}/agent/manifest`, { ...notFound(name), raw: true })).body;
      cli.io.out.write(yaml.endsWith('\n') ? yaml : `${yaml}\n`);
      if (cli.io.out.isTTY) cli.io.err.write(`apply it in cluster ${name}: flotilla cluster install-agent ${name} | kubectl apply -f -\n`);
    });
  examples(cmd, ['flotilla cluster install-agent edge-1 | kubectl --context edge-1 apply -f -', 'flotilla cluster install-agent edge-1 > agent.yaml']);
}
