// `flotilla cluster …`: the hub's inventory of clusters.
import type { Command } from 'commander';
import { group, type Cli } from '../../cli';
import { registerClusterRegister } from './register';
import { registerClusterList } from './list';
import { registerClusterGet } from './get';
import { registerClusterUpdate } from './update';
import { registerClusterDelete } from './delete';
import { registerClusterCheck } from './check';
import { registerClusterInstallAgent } from './install-agent';
import { registerClusterUpgradeAgent } from './upgrade-agent';

export function registerCluster(program: Command, cli: Cli): void {
  const cluster = group(program, 'cluster', 'register and inspect the clusters of the fleet');
  registerClusterRegister(cluster, cli);
  registerClusterList(cluster, cli);
  registerClusterGet(cluster, cli);
  registerClusterUpdate(cluster, cli);
  registerClusterDelete(cluster, cli);
  registerClusterCheck(cluster, cli);
  registerClusterInstallAgent(cluster, cli);
  registerClusterUpgradeAgent(cluster, cli);
}
