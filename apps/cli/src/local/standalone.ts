// Standalone clusters: the agent there reconciles `projects.timoni.sh`
// Project resources with no hub, and honours annotations (docs/agent.md).
// These helpers talk to such a cluster through a kubeconfig context.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { ClusterConnection, credentialsFromKubeconfig, KubeApiError, ObjectClient } from '@flotilla/kube';
import { CliError, messageOf } from '../errors';

export const REQUESTED_AT = 'reconcile.timoni.sh/requestedAt';
export const SUSPEND = 'reconcile.timoni.sh/suspend';

export interface StandaloneFlags {
  kubeconfig?: string;
  kubeContext?: string;
  namespace?: string;
}

/** A command works on a standalone cluster instead of the hub when a kubeconfig or context is named. */
export function isStandalone(f: StandaloneFlags): boolean {
  return Boolean(f.kubeconfig || f.kubeContext);
}

export function standaloneOptions(cmd: Command): Command {
  return cmd
    .option('--kube-context <name>', 'work on the standalone cluster of this kubeconfig context instead of the hub')
    .option('--kubeconfig <file>', 'kubeconfig for --kube-context (default: KUBECONFIG, else ~/.kube/config)')
    .option('-n, --namespace <ns>', "the Project's namespace on a standalone cluster (default: default; list: all)");
}

export function kubeClient(f: StandaloneFlags, env: NodeJS.ProcessEnv): ObjectClient {
  const path = f.kubeconfig ?? env.KUBECONFIG?.split(':')[0] ?? join(env.HOME || homedir(), '.kube', 'config');
  if (!existsSync(path)) throw new CliError(`kubeconfig ${path} does not exist`, 'name one with --kubeconfig');
  try {
    const { credentials } = credentialsFromKubeconfig(readFileSync(path, 'utf8'), { ...(f.kubeContext ? { context: f.kubeContext } : {}), allowFiles: { baseDir: dirname(path) } });
    return new ObjectClient(ClusterConnection.create(credentials));
  } catch (err) {
    throw new CliError(`kubeconfig ${path}: ${messageOf(err)}`, 'check --kube-context and the file');
  }
}

/** Sets (or, with null, removes) annotations of a Project resource: how the agent is asked to act. */
export async function annotateProject(f: StandaloneFlags, env: NodeJS.ProcessEnv, name: string, annotations: Record<string, string | null>): Promise<void> {
  const client = kubeClient(f, env);
  const ns = f.namespace ?? 'default';
  try {
    await client.patch({ apiVersion: 'projects.timoni.sh/v1alpha1', kind: 'Project', namespace: ns, name }, { metadata: { annotations } }, 'merge', { fieldManager: 'flotilla' });
  } catch (err) {
    if (err instanceof KubeApiError && err.statusCode === 404) {
      throw new CliError(`project "${name}" not found in namespace ${ns}${f.kubeContext ? ` of context ${f.kubeContext}` : ''}`, 'check -n, or whether the Project CRD is installed (kubectl get projects.timoni.sh -A)');
    }
    throw new CliError(`cannot update project "${name}" in namespace ${ns}: ${messageOf(err)}`);
  } finally {
    await client.connection.close();
  }
}

/** The Project resource's fields `list` and `status` read (the agent writes the status). */
export interface ProjectResource {
  metadata: { name: string; namespace?: string; annotations?: Record<string, string>; creationTimestamp?: string; generation?: number };
  spec: { source: { repository: string; tag?: string } };
  status?: {
    conditions?: Array<{ type: string; status: string; reason: string; message: string }>;
    lastAppliedRevision?: string;
    nextReconcileAt?: string;
    failures?: number;
    components?: Array<{ name: string; status: string; instances: Array<{ name: string; namespace: string; ready: boolean; objects: number; module?: { name: string; version: string }; error?: string }>; error?: string }>;
  };
}

export async function readProjects(f: StandaloneFlags, env: NodeJS.ProcessEnv, name?: string): Promise<ProjectResource[]> {
  const client = kubeClient(f, env);
  const ns = name ? (f.namespace ?? 'default') : f.namespace;
  try {
    if (name) return [(await client.get({ apiVersion: 'projects.timoni.sh/v1alpha1', kind: 'Project', namespace: ns, name })) as unknown as ProjectResource];
    return (await client.list('projects.timoni.sh/v1alpha1', 'Project', { namespace: ns })) as unknown as ProjectResource[];
  } catch (err) {
    if (err instanceof KubeApiError && err.statusCode === 404) {
      throw new CliError(name ? `project "${name}" not found in namespace ${ns}${f.kubeContext ? ` of context ${f.kubeContext}` : ''}` : 'no Project resources here', 'check -n, or whether the Project CRD is installed (kubectl get projects.timoni.sh -A)');
    }
    throw new CliError(`cannot read Projects${ns ? ` in namespace ${ns}` : ''}: ${messageOf(err)}`);
  } finally {
    await client.connection.close();
  }
}
