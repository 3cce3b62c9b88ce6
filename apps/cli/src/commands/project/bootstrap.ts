// `flotilla project bootstrap NAME --kube-context C`: everything a standalone
// cluster needs to reconcile one Project, after a confirmation (or --yes).
import type { Command } from 'commander';
import { examples, keyValue, type Cli } from '../../cli';
import { CliError, UsageError } from '../../errors';
import { loadAgentManifests } from '../../local/agent-manifests';
import { agentMissing, applyBootstrap, planBootstrap, subjectOf, type PlannedObject } from '../../local/bootstrap-apply';
import { tenantObjects, type BootstrapInput } from '../../local/bootstrap-plan';
import { confirm } from '../../local/confirm';
import { isStandalone, kubeClient, standaloneOptions, type StandaloneFlags } from '../../local/standalone';
import { withProgress } from '../../output/progress';

const DNS_LABEL = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/;

interface BootstrapFlags extends StandaloneFlags {
  repository?: string;
  tag: string;
  path: string;
  serviceAccount?: string;
  role: string;
  pullCreds?: string;
  annotation?: Record<string, string>;
  agent: boolean;
  agentImage?: string;
  yes?: boolean;
}

export function registerProjectBootstrap(parent: Command, cli: Cli): void {
  const cmd = standaloneOptions(parent.command('bootstrap <name>').description('set up a standalone cluster for a Project: namespace, service account, role binding, pull secret, the Project resource, and the agent when missing'))
    .option('--repository <oci://…>', "the Project's artifact repository")
    .option('--tag <tag>', 'the tag the cluster follows', 'latest')
    .option('--path <file>', 'the project file in the artifact', 'project.cue')
    .option('--service-account <name>', 'the service account the agent impersonates (default: the Project name)')
    .option('--role <cluster-role>', 'ClusterRole bound to the service account in the namespace only', 'admin')
    .option('--pull-creds <user:password>', "registry credentials for a pull secret the service account uses (the repository's registry)")
    .option('-a, --annotation <key=value>', 'annotation on the Project, e.g. runtime.timoni.sh/ENV=prod (repeatable)', keyValue)
    .option('--no-agent', 'do not install the agent, even when it is missing')
    .option('--agent-image <image>', "the agent's image (default: the one in deploy/agent)")
    .option('-y, --yes', 'apply without asking')
    .action((name: string, opts: BootstrapFlags) => bootstrap(cli, name, opts));
  examples(cmd, [
    'flotilla project bootstrap shop --kube-context edge-1 -n shop --repository oci://ghcr.io/acme/shop --tag v1',
    'flotilla project bootstrap shop --kube-context edge-1 -n shop --repository oci://registry.local/shop --pull-creds bot:$TOKEN -a runtime.timoni.sh/ENV=edge --yes',
  ]);
}

async function bootstrap(cli: Cli, name: string, opts: BootstrapFlags): Promise<void> {
  if (!isStandalone(opts)) throw new UsageError('bootstrap works on a standalone cluster: name it with --kube-context (and --kubeconfig)', 'the hub registers clusters with `flotilla cluster register`');
  if (!DNS_LABEL.test(name)) throw new UsageError(`"${name}" is not a DNS label (lowercase letters, digits and "-", at most 63)`);
  if (!opts.repository?.startsWith('oci://')) throw new UsageError('give the artifact with --repository oci://host/path');
  const input: BootstrapInput = {
    name,
    namespace: opts.namespace ?? 'default',
    repository: opts.repository,
    tag: opts.tag,
    path: opts.path,
    serviceAccount: opts.serviceAccount ?? name,
    role: opts.role,
    creds: opts.pullCreds,
    annotations: opts.annotation ?? {},
  };
  let tenant;
  try {
    tenant = tenantObjects(input);
  } catch (err) {
    throw new UsageError(`--repository "${opts.repository}": ${err instanceof Error ? err.message : String(err)}`);
  }
  const client = kubeClient(opts, cli.io.env);
  try {
    const installAgent = opts.agent && (await agentMissing(client));
    const plan = await planBootstrap(client, tenant, installAgent ? loadAgentManifests(undefined, opts.agentImage) : []);
    printPlan(cli, input, plan, opts, installAgent);
    if (plan.every((p) => p.action === 'unchanged')) {
      cli.io.out.write('nothing to do\n');
      return;
    }
    if (!opts.yes && !(await confirm(cli.io, 'apply these changes?'))) throw new CliError('bootstrap cancelled: nothing was changed', 'answer y, or pass --yes');
    await withProgress(cli.io, `bootstrapping project ${name}`, () => applyBootstrap(client, plan, (p) => cli.io.out.write(`${p.action === 'create' ? 'created' : p.action === 'update' ? 'configured' : 'unchanged'} ${subjectOf(p.object)}\n`)));
    const k = `${opts.kubeconfig ? ` --kubeconfig ${opts.kubeconfig}` : ''}${opts.kubeContext ? ` --kube-context ${opts.kubeContext}` : ''} -n ${input.namespace}`;
    cli.io.out.write(`project/${name} bootstrapped; follow it with \`flotilla project status ${name}${k}\`\n`);
  } finally {
    await client.connection.close();
  }
}

function printPlan(cli: Cli, input: BootstrapInput, plan: PlannedObject[], opts: BootstrapFlags, installAgent: boolean): void {
  const where = opts.kubeContext ? `context ${opts.kubeContext}` : `the kubeconfig's current context`;
  cli.io.out.write(`bootstrap of project ${input.name} in namespace ${input.namespace} of ${where}:\n`);
  for (const p of plan) cli.io.out.write(`  ${p.action.padEnd(9)} ${subjectOf(p.object)}${p.agent ? '   (agent)' : ''}\n`);
  if (!installAgent) cli.io.out.write(opts.agent ? '  the agent is installed already\n' : '  the agent is not installed (--no-agent)\n');
}
