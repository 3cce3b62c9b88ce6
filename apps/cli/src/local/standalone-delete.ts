// Deleting a standalone cluster's Project resource. The agent's finalizer
// removes the instances first (or leaves them, with the Orphan policy set
// before the delete), then lets the resource go: --wait follows that.
import { KubeApiError } from '@flotilla/kube';
import { CliError, messageOf } from '../errors';
import { kubeClient, type StandaloneFlags } from './standalone';

export const DELETION_POLICY = 'reconcile.timoni.sh/deletionPolicy';

export interface StandaloneDelete {
  orphan: boolean;
  wait: boolean;
  timeoutMs: number;
  /** told once the deletion has started, before any waiting */
  onDeleting?: () => void;
}

/** Returns whether the resource is gone (false: the agent is still removing its instances). */
export async function deleteStandaloneProject(f: StandaloneFlags, env: NodeJS.ProcessEnv, name: string, opts: StandaloneDelete): Promise<boolean> {
  const client = kubeClient(f, env);
  const ns = f.namespace ?? 'default';
  const ref = { apiVersion: 'projects.timoni.sh/v1alpha1', kind: 'Project', namespace: ns, name };
  const missing = () => new CliError(`project "${name}" not found in namespace ${ns}${f.kubeContext ? ` of context ${f.kubeContext}` : ''}`, 'check -n, or list them with `flotilla project list --kube-context …`');
  try {
    // the policy is read when the deletion starts, so it goes first
    if (opts.orphan) await client.patch(ref, { metadata: { annotations: { [DELETION_POLICY]: 'Orphan' } } }, 'merge', { fieldManager: 'flotilla' });
    if (!(await client.delete(ref))) throw missing();
    opts.onDeleting?.();
    if (!opts.wait) return (await client.getOptional(ref)) === undefined;
    const deadline = Date.now() + opts.timeoutMs;
    while ((await client.getOptional(ref)) !== undefined) {
      if (Date.now() > deadline) throw new CliError(`project "${name}" in ${ns} is still being deleted after ${opts.timeoutMs / 1000}s`, 'the agent removes its instances first: see `flotilla project events` and the agent log');
      await new Promise((r) => setTimeout(r, 500));
    }
    return true;
  } catch (err) {
    if (err instanceof CliError) throw err;
    if (err instanceof KubeApiError && err.statusCode === 404) throw missing();
    throw new CliError(`cannot delete project "${name}" in namespace ${ns}: ${messageOf(err)}`);
  } finally {
    await client.connection.close();
  }
}
