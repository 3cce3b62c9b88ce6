// Loads and validates project.cue (Project RFC): schema, file references,
// needs, durations, then the execution plan.
import { posix } from 'node:path';
import { CueEvaluationError, parseOrderedJson, type CueEngine, type FileTree, type OrderedValue } from '@flotilla/cue';
import { field, lineOf, packageOf, resolveInTree, textOf, withPackage } from './cue-source';
import { parseDuration } from './duration';
import { ProjectError, issuesFromDiagnostics, type TimoniIssue } from './errors';
import { planProject } from './project-plan';
import { PROJECT_SCHEMA } from './schemas';
import type { ExecutionPlan, Project, ProjectComponent } from './types';

export interface ProjectLoadOptions {
  /** Tree path of the project definition (the Project's `spec.source.path`). */
  path: string;
  /** libs/cue tenant of the evaluation. */
  tenant?: string;
}

export function defaultProjectLoadOptions(): ProjectLoadOptions {
  return { path: 'project.cue' };
}

export interface LoadedProject {
  project: Project;
  plan: ExecutionPlan;
}

/** Loads the project file from the tree; every problem found is reported in one ProjectError. */
export async function loadProject(cue: CueEngine, files: FileTree, options: ProjectLoadOptions = defaultProjectLoadOptions()): Promise<LoadedProject> {
  const path = resolveInTree('', options.path);
  if (!path || files[path] === undefined) {
    throw new ProjectError(`project ${options.path}`, [{ message: `project file ${options.path} not found in the source` }]);
  }
  const src = textOf(files, path);
  const schemaPath = posix.join(posix.dirname(path), 'flotilla.project.schema.cue');
  let components: OrderedValue;
  let name: string;
  let apiVersion: string;
  try {
    const res = await cue.evaluate({
      files: { ...files, [schemaPath]: withPackage(packageOf(src), PROJECT_SCHEMA) },
      entries: [path, schemaPath],
      checks: [{ path: 'project', concrete: true }],
      exports: [{ path: 'project.apiVersion' }, { path: 'project.name' }, { path: 'project.components' }],
    }, { tenant: options.tenant });
    apiVersion = JSON.parse(res.exports[0].json!) as string;
    name = JSON.parse(res.exports[1].json!) as string;
    components = parseOrderedJson(res.exports[2].json!);
  } catch (err) {
    if (err instanceof CueEvaluationError) throw new ProjectError(`project ${path}`, issuesFromDiagnostics(err.diagnostics), { cause: err });
    throw err;
  }

  const issues: TimoniIssue[] = [];
  const at = (needle: string) => ({ file: path, line: lineOf(src, needle) });
  const dir = posix.dirname(path) === '.' ? '' : posix.dirname(path);
  const list: ProjectComponent[] = [];
  if (!(components instanceof Map) || components.size === 0) issues.push({ message: 'project has no components', ...at('components') });
  for (const [cname, c] of components instanceof Map ? components : []) {
    const subject = `component ${cname}`;
    const strings = (key: string) => ((field(c, key) as OrderedValue[] | undefined) ?? []).map(String);
    const refs = (key: 'bundle' | 'runtime'): string[] =>
      strings(key).map((ref) => {
        const resolved = resolveInTree(dir, ref);
        if (!resolved) issues.push({ subject, message: `${key} file ${ref} escapes the project source`, ...at(ref) });
        else if (files[resolved] === undefined) issues.push({ subject, message: `${key} file ${ref} not found`, ...at(ref) });
        return resolved ?? ref;
      });
    const bundle = refs('bundle');
    const runtime = refs('runtime');
    if (bundle.length === 0) issues.push({ subject, message: 'component has no bundle files', ...at(cname) });
    const timeout = field(c, 'timeout') as string | undefined;
    let timeoutMs: number | undefined;
    if (timeout !== undefined) {
      timeoutMs = parseDuration(timeout);
      if (timeoutMs === undefined || timeoutMs <= 0) {
        issues.push({ subject, message: `timeout "${timeout}" is not a positive duration (e.g. 90s, 5m, 1h30m)`, ...at(`"${timeout}"`) });
      }
    }
    list.push({ name: cname, bundle, runtime, needs: strings('needs'), wait: field(c, 'wait') === true, timeout, timeoutMs });
  }
  const names = new Set(list.map((c) => c.name));
  for (const c of list) {
    for (const dep of c.needs) {
      if (!names.has(dep)) issues.push({ subject: `component ${c.name}`, message: `needs unknown component "${dep}"`, ...at(`"${dep}"`) });
    }
  }
  if (issues.length > 0) throw new ProjectError(`project ${name}`, issues);
  const plan = planProject(list, path);
  return { project: { apiVersion, name, file: path, components: list }, plan };
}
