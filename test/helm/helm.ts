// The real Helm CLI that test/helm/build.mjs built (npm run build:test), and
// the server-side dry run the chart and manifest specs share.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject, ObjectClient } from '@flotilla/kube';

export const REPO_ROOT = join(__dirname, '..', '..');
export const CHART_DIR = join(REPO_ROOT, 'deploy', 'charts', 'flotilla-hub');

export interface HelmResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

function helmBinary(): string {
  const record = join(__dirname, '.binaries.json');
  if (!existsSync(record)) throw new Error(`${record} is missing: run \`npm run build:test\` (it builds Helm once and caches it)`);
  return (JSON.parse(readFileSync(record, 'utf8')) as { helm: string }).helm;
}

/** Runs helm with its own empty config and cache dirs, so the machine's repositories and plugins play no part. */
export function helm(args: string[], home: string): HelmResult {
  const res = spawnSync(helmBinary(), args, {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: home, HELM_CACHE_HOME: join(home, 'cache'), HELM_CONFIG_HOME: join(home, 'config'), HELM_DATA_HOME: join(home, 'data') },
  });
  if (res.error) throw res.error;
  // the chart links deploy/agent/crd.yaml on purpose; Helm says so on every run
  const stderr = res.stderr.split('\n').filter((l) => !l.includes('found symbolic link in path')).join('\n');
  return { status: res.status, stdout: res.stdout, stderr };
}

export interface RenderOptions {
  release?: string;
  namespace: string;
  valuesFiles?: string[];
  set?: Record<string, string>;
  /** the harness API server's version, so Capabilities match what the objects are applied to */
  kubeVersion: string;
}

export function templateArgs(o: RenderOptions): string[] {
  return [
    'template', o.release ?? 'flotilla-hub', CHART_DIR,
    '--namespace', o.namespace,
    '--kube-version', o.kubeVersion.replace(/^v/, ''),
    ...(o.valuesFiles ?? []).flatMap((f) => ['--values', f]),
    ...Object.entries(o.set ?? {}).flatMap(([k, v]) => ['--set', `${k}=${v}`]),
  ];
}

/** `helm template` for these values; throws with Helm's message when it refuses them. */
export function render(o: RenderOptions, home: string): KubeObject[] {
  const res = helm(templateArgs(o), home);
  if (res.status !== 0) throw new Error(`helm template failed (${res.status}):\n${res.stderr}`);
  return parseManifests(res.stdout, 'helm template');
}

export function parseManifests(text: string, source: string): KubeObject[] {
  const objects: KubeObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length) throw new Error(`${source}: not valid YAML: ${doc.errors[0].message}`, { cause: doc.errors[0] });
    const obj = doc.toJS() as KubeObject | null;
    if (obj !== null) objects.push(obj);
  }
  return objects;
}

/**
 * Server-side apply with dryRun=All and strict field validation: the API server
 * runs defaulting, validation and admission on the object, refuses unknown
 * fields, and stores nothing.
 */
export async function dryRunApply(client: ObjectClient, obj: KubeObject): Promise<KubeObject> {
  const subject = `${obj.kind}/${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
  return client.connection.request<KubeObject>({
    method: 'PATCH',
    path: await client.objectPath({ apiVersion: obj.apiVersion, kind: obj.kind, namespace: obj.metadata.namespace, name: obj.metadata.name }),
    query: { fieldManager: 'flotilla-test', force: true, fieldValidation: 'Strict', dryRun: 'All' },
    body: obj,
    contentType: 'application/apply-patch+yaml',
    subject,
  });
}
