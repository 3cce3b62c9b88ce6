// Projects for the agent's process tests: the hub's greeter module and
// project files in the harness registry, a tenant namespace with its
// service account, and readers of what the agent wrote.
import { RegistryClient, defaultPushModuleOptions, pushModule } from '@flotilla/oci';
import type { KubeObject, ObjectClient } from '@flotilla/kube';
import { harnessEnv } from '../../../test/harness/env';
import { pushProject, unique } from '../../../libs/engine/testdata/harness';
import { GREETER_MODULE_DIR, greeterProjectFiles } from '../../hub/test/push-fixtures';
import { PROJECT_API_VERSION, type ProjectResource } from '../src/project/project-resource';

export const registry = new RegistryClient();

/** Pushes the greeter module under a fresh repository; returns its `oci://` URL. */
export async function pushGreeterModule(): Promise<string> {
  const url = `oci://${harnessEnv().registry.host}/${unique('modules/greeter')}`;
  await pushModule(registry, url, GREETER_MODULE_DIR, defaultPushModuleOptions('1.0.0'));
  return url;
}

export function projectRepository(): string {
  return `oci://${harnessEnv().registry.host}/${unique('projects/greet')}`;
}

export type GreeterRevision = { cache: boolean; shout: boolean; broken?: boolean };

/** Pushes a revision of the greeter Project under `tag`; returns its digest. */
export function pushGreeter(repo: string, moduleUrl: string, ns: string, rev: GreeterRevision, tag = 'latest'): Promise<string> {
  return pushProject(registry, repo, greeterProjectFiles(moduleUrl, ns, rev), tag);
}

/** A Project of one component with one greeter instance named `instance`. */
export function pushSingle(repo: string, moduleUrl: string, ns: string, instance: string, tag = 'latest', greeting = instance): Promise<string> {
  const files = {
    'project.cue': `project: {\n\tapiVersion: "v1alpha1"\n\tname: "single"\n\tcomponents: main: bundle: ["./bundle.cue"]\n}\n`,
    'bundle.cue': `bundle: {\n\tapiVersion: "v1alpha1"\n\tname: "single"\n\tinstances: "${instance}": {\n\t\tmodule: {url: "${moduleUrl}", version: "1.0.0"}\n\t\tnamespace: "${ns}"\n\t\tvalues: greeting: "${greeting}"\n\t}\n}\n`,
  };
  return pushProject(registry, repo, files, tag);
}

/** Creates (or replaces) an object as the test's admin. */
export function applyObject(client: ObjectClient, obj: KubeObject): Promise<KubeObject> {
  return client.apply(obj, { dryRun: false, force: true, fieldManager: 'flotilla-test' });
}

export function projectObject(name: string, ns: string, repo: string, annotations: Record<string, string> = {}, serviceAccountName = 'deployer'): KubeObject {
  return { apiVersion: PROJECT_API_VERSION, kind: 'Project', metadata: { name, namespace: ns, annotations }, spec: { serviceAccountName, source: { repository: repo } } };
}

export async function getProject(client: ObjectClient, ns: string, name: string): Promise<ProjectResource | undefined> {
  return (await client.getOptional({ apiVersion: PROJECT_API_VERSION, kind: 'Project', namespace: ns, name })) as ProjectResource | undefined;
}

export function condition(p: ProjectResource | undefined, type: string): { status: string; reason: string; message: string } | undefined {
  return p?.status?.conditions?.find((c) => c.type === type);
}

/** ConfigMaps the greeter instances made, by name. */
export async function configMaps(client: ObjectClient, ns: string): Promise<Record<string, Record<string, string>>> {
  const list = await client.list('v1', 'ConfigMap', { namespace: ns });
  return Object.fromEntries(list.filter((c) => c.metadata.name !== 'kube-root-ca.crt').map((c) => [c.metadata.name, (c.data ?? {}) as Record<string, string>]));
}

/** Names of the Timoni inventory Secrets in `ns`. */
export async function inventorySecrets(client: ObjectClient, ns: string): Promise<string[]> {
  const list = await client.list('v1', 'Secret', { namespace: ns });
  return list.map((s) => s.metadata.name).filter((n) => n.startsWith('timoni.')).sort();
}

export async function projectEvents(client: ObjectClient, ns: string, name: string): Promise<Array<{ reason: string; message: string; type: string }>> {
  const list = await client.list('v1', 'Event', { namespace: ns });
  return list
    .filter((e) => (e.involvedObject as { kind?: string; name?: string } | undefined)?.kind === 'Project' && (e.involvedObject as { name?: string }).name === name)
    .map((e) => ({ reason: String(e.reason), message: String(e.message), type: String(e.type) }));
}
