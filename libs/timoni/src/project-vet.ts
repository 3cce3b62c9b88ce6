// `vet` of a whole Project for one cluster: every component's runtime and
// bundle loaded and every instance built; all problems aggregated with
// file:line instead of stopping at the first.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileTree, type CueEngine, type FileTree } from '@flotilla/cue';
import { pullArtifact, parseReference, type RegistryClient } from '@flotilla/oci';
import { issuesOf, type ClusterTarget, type ComponentBuilder } from './component-build';
import type { TimoniIssue } from './errors';
import { defaultProjectLoadOptions, loadProject, type ProjectLoadOptions } from './project-load';
import type { ExecutionPlan, InstanceBuild, Project } from './types';

export interface VetReport {
  project?: Project;
  plan?: ExecutionPlan;
  /** Instances built, by component. */
  built: Record<string, InstanceBuild[]>;
  issues: TimoniIssue[];
  ok: boolean;
}

export async function vetProject(
  cue: CueEngine,
  components: ComponentBuilder,
  files: FileTree,
  target: ClusterTarget,
  options: ProjectLoadOptions = defaultProjectLoadOptions(),
): Promise<VetReport> {
  const report: VetReport = { built: {}, issues: [], ok: false };
  try {
    const loaded = await loadProject(cue, files, options);
    report.project = loaded.project;
    report.plan = loaded.plan;
  } catch (err) {
    report.issues.push(...issuesOf(err, `project ${options.path}`));
    return report;
  }
  for (const name of report.plan!.order) {
    const component = report.project!.components.find((c) => c.name === name)!;
    const subject = `component ${name}`;
    report.built[name] = [];
    let bundle;
    try {
      const values = await components.runtimeValues(files, component, target);
      bundle = await components.bundle(files, component, values);
    } catch (err) {
      report.issues.push(...issuesOf(err, subject));
      continue;
    }
    for (let i = 0; i < bundle.instances.length; i++) {
      try {
        report.built[name].push(await components.instance(files, bundle, i, target.kubeVersion));
      } catch (err) {
        report.issues.push(...issuesOf(err, `${subject}: instance ${bundle.instances[i].name}`));
      }
    }
  }
  report.ok = report.issues.length === 0;
  return report;
}

/** Pulls a Project artifact (`oci://repo:tag` or `@digest`) and vets it. */
export async function vetProjectArtifact(
  cue: CueEngine,
  components: ComponentBuilder,
  client: RegistryClient,
  url: string,
  target: ClusterTarget,
  options: ProjectLoadOptions = defaultProjectLoadOptions(),
): Promise<VetReport & { digest: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'flotilla-project-'));
  try {
    const pulled = await pullArtifact(client, parseReference(url), dir);
    const report = await vetProject(cue, components, readFileTree(dir), target, options);
    return { ...report, digest: pulled.digest };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
