// Flags shared by `project vet` and `project build`.
import type { Command } from 'commander';
import { keyValue } from '../../cli';
import { registryOptions } from '../../local/registry';

export function localProjectOptions(cmd: Command): Command {
  return registryOptions(
    cmd
      .option('--file <path>', 'the project definition inside DIR', 'project.cue')
      .option('--cluster-name <name>', 'build as for this cluster (TIMONI_CLUSTER_NAME)')
      .option('--cluster-group <group>', "the cluster's group (TIMONI_CLUSTER_GROUP)")
      .option('--runtime <NAME=value>', 'a runtime value, as the annotation runtime.timoni.sh/NAME gives it (repeatable)', keyValue)
      .option('--kube-version <version>', 'Kubernetes version the modules see, e.g. 1.36.0'),
  );
}
