// The events the agent records on a standalone cluster's Project resource
// (core/v1 Events whose involvedObject is the Project), oldest first.
import { KubeApiError, type KubeObject } from '@flotilla/kube';
import { CliError, messageOf } from '../errors';
import { kubeClient, type StandaloneFlags } from './standalone';

export interface ProjectEvent {
  time: string;
  type: string;
  reason: string;
  message: string;
  /** `namespace/name` of the instance, when the agent named one */
  instance: string | null;
  count: number;
}

export async function readProjectEvents(f: StandaloneFlags, env: NodeJS.ProcessEnv, name: string, limit: number): Promise<ProjectEvent[]> {
  const client = kubeClient(f, env);
  const ns = f.namespace ?? 'default';
  try {
    // the Project must exist: no events of a name that is not there says nothing
    await client.get({ apiVersion: 'projects.timoni.sh/v1alpha1', kind: 'Project', namespace: ns, name });
    const events = await client.list('v1', 'Event', { namespace: ns });
    return events.filter((e) => isAbout(e, name)).map(toEvent).sort((a, b) => a.time.localeCompare(b.time)).slice(-limit);
  } catch (err) {
    if (err instanceof KubeApiError && err.statusCode === 404) {
      throw new CliError(`project "${name}" not found in namespace ${ns}${f.kubeContext ? ` of context ${f.kubeContext}` : ''}`, 'check -n, or list them with `flotilla project list --kube-context …`');
    }
    throw new CliError(`cannot read the events of project "${name}" in namespace ${ns}: ${messageOf(err)}`);
  } finally {
    await client.connection.close();
  }
}

function isAbout(e: KubeObject, name: string): boolean {
  const about = e.involvedObject as { apiVersion?: string; kind?: string; name?: string } | undefined;
  return about?.kind === 'Project' && about.name === name && (about.apiVersion ?? '').startsWith('projects.timoni.sh/');
}

function toEvent(e: KubeObject): ProjectEvent {
  const a = e.metadata.annotations ?? {};
  const instance = a['instance.timoni.sh/name'] ? `${a['instance.timoni.sh/namespace'] ?? ''}/${a['instance.timoni.sh/name']}` : null;
  const time = String(e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata.creationTimestamp ?? '');
  return { time, type: String(e.type ?? ''), reason: String(e.reason ?? ''), message: String(e.message ?? ''), instance, count: Number(e.count ?? 1) };
}
