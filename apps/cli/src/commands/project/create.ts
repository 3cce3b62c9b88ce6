// `flotilla project create NAME`: a Project from flags (apply -f for files).
import type { Command } from 'commander';
import { collect, examples, keyValue, type Cli } from '../../cli';
import type { Project } from '../../hub/types';

interface CreateOptions {
  tenant?: string;
  namespace: string;
  repository: string;
  tag?: string;
  path?: string;
  serviceAccount?: string;
  cluster?: string[];
  group?: string[];
  interval?: string;
  annotation?: Record<string, string>;
  suspend?: boolean;
}

export function registerProjectCreate(parent: Command, cli: Cli): void {
  const cmd = parent
    .command('create <name>')
    .description('create a Project on the hub from flags (see `project apply -f` for files)')
    .requiredOption('--namespace <ns>', 'namespace of the Project on each cluster')
    .option('--tenant <name>', 'the tenant it belongs to, fixed at creation (default: your only tenant, or `default`)')
    .requiredOption('--repository <oci-url>', 'the Project artifact, oci://host/repo')
    .option('--tag <tag>', 'artifact tag (default latest)')
    .option('--path <path>', 'project definition in the artifact (default project.cue)')
    .option('--service-account <name>', 'service account the Project applies as')
    .option('--cluster <name>', 'target this cluster (repeatable)', collect)
    .option('--group <group>', 'target this cluster group (repeatable)', collect)
    .option('--interval <duration>', 'drift correction interval, e.g. 10m')
    .option('--annotation <key=value>', 'annotation, e.g. runtime.timoni.sh/ENV=prod (repeatable)', keyValue)
    .option('--suspend', 'create it suspended')
    .action(async (name: string, o: CreateOptions) => {
      const body = {
        name,
        tenant: o.tenant,
        namespace: o.namespace,
        source: { repository: o.repository, tag: o.tag, path: o.path },
        serviceAccountName: o.serviceAccount,
        targets: o.cluster || o.group ? { names: o.cluster, groups: o.group } : undefined,
        interval: o.interval,
        annotations: o.annotation,
        suspend: o.suspend,
      };
      const p = (await cli.hub().request<Project>('POST', '/projects', { body })).body;
      cli.io.out.write(`project/${p.name} created (${p.status.targets} target${p.status.targets === 1 ? '' : 's'}); follow it with \`flotilla project status ${p.name} --watch\`\n`);
    });
  examples(cmd, [
    'flotilla project create shop --namespace shop --repository oci://ghcr.io/acme/shop --group production',
    'flotilla project create shop --namespace shop --repository oci://ghcr.io/acme/shop --tag v1.2.0 --cluster dev --annotation runtime.timoni.sh/ENV=dev',
  ]);
}
