// `flotilla cluster upgrade-agent NAME`: the hub sends its configured agent
// image to the cluster's agent, which sets it on its own Deployment.
import type { Command } from 'commander';
import { examples, seg, type Cli } from '../../cli';
import type { AgentUpgrade } from '../../hub/types';
import { notFound } from './not-found';

export function registerClusterUpgradeAgent(parent: Command, cli: Cli): void {
  const cmd = parent
    .command('upgrade-agent <name>')
    .description("move an agent cluster's agent to the hub's agent image (the hub's FLOTILLA_AGENT_IMAGE, never one you name): the agent sets it on its Deployment and Kubernetes rolls it; a new agent that never becomes ready leaves the old one running")
    .action(async (name: string) => {
      const u = (await cli.hub().request<AgentUpgrade>('POST', `/clusters/${seg(name)}/agent/upgrade`, notFound(name))).body;
      cli.io.out.write(`cluster/${u.cluster}: agent ${u.fromVersion ?? '(version unknown)'} -> ${u.image} (hub ${u.hubVersion})\n${u.message}\n`);
      cli.io.out.write(`watch it: flotilla cluster get ${name}\n`);
    });
  examples(cmd, ['flotilla cluster upgrade-agent edge-1', 'flotilla cluster get edge-1   # the agent version once the new agent has connected']);
}
