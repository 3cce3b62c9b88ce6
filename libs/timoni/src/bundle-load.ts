// Bundles (§3): the files unified as one package with #Bundle bound,
// runtime attributes injected first, instances read in field order.
import { posix } from 'node:path';
import { CueEvaluationError, parseOrderedJson, type CueEngine, type FileTree } from '@flotilla/cue';
import { field, orderedToJson, packageOf, textOf, withPackage } from './cue-source';
import { BundleError, issuesFromDiagnostics, type TimoniIssue } from './errors';
import { injectRuntimeValues } from './runtime-attributes';
import { BUNDLE_SCHEMA } from './schemas';
import type { Bundle, BundleInstance, RuntimeValues } from './types';

export const SOURCE_EXTENSIONS = ['.cue', '.json', '.yaml', '.yml'];

/** Rejects unknown extensions and missing files, naming them. */
export function checkSourceFiles(kind: string, tree: FileTree, paths: readonly string[]): TimoniIssue[] {
  const issues: TimoniIssue[] = [];
  if (paths.length === 0) issues.push({ message: `no ${kind} files given` });
  for (const p of paths) {
    if (!SOURCE_EXTENSIONS.includes(posix.extname(p).toLowerCase())) issues.push({ file: p, message: `${kind} file must be .cue, .json, .yaml or .yml` });
    else if (tree[p] === undefined) issues.push({ file: p, message: `${kind} file not found` });
  }
  return issues;
}

/** The package clause the generated schema file must carry to join the files. */
export function commonPackage(tree: FileTree, paths: readonly string[]): string | undefined {
  const cueFile = paths.find((p) => p.endsWith('.cue'));
  return cueFile ? packageOf(textOf(tree, cueFile)) : undefined;
}

export interface BundleLoadRequest {
  /** The tree the bundle files live in (imports and @embed resolve in it). */
  files: FileTree;
  /** Tree paths of the bundle files, in order. */
  paths: string[];
  values: RuntimeValues;
  /** libs/cue tenant of the load's CUE calls. */
  tenant?: string;
}

export async function loadBundle(cue: CueEngine, req: BundleLoadRequest): Promise<Bundle> {
  const pre = checkSourceFiles('bundle', req.files, req.paths);
  if (pre.length > 0) throw new BundleError('bundle', pre);
  const { files, injected } = await injectRuntimeValues(cue, req.files, req.paths, req.values, { tenant: req.tenant });
  const schemaPath = posix.join(posix.dirname(req.paths[0]), 'flotilla.bundle.schema.cue');
  let name: string;
  let apiVersion: string;
  let instancesJson: string;
  try {
    const res = await cue.evaluate({
      files: { ...files, [schemaPath]: withPackage(commonPackage(files, req.paths), BUNDLE_SCHEMA) },
      entries: [...req.paths, schemaPath],
      checks: [{ path: 'bundle', concrete: true }],
      exports: [{ path: 'bundle.apiVersion' }, { path: 'bundle.name' }, { path: 'bundle.instances' }],
    }, { tenant: req.tenant });
    apiVersion = JSON.parse(res.exports[0].json!) as string;
    name = JSON.parse(res.exports[1].json!) as string;
    instancesJson = res.exports[2].json!;
  } catch (err) {
    if (err instanceof CueEvaluationError) throw new BundleError(`bundle ${req.paths.join(', ')}`, issuesFromDiagnostics(err.diagnostics), { cause: err });
    throw err;
  }
  const baseDir = posix.dirname(req.paths[0]) === '.' ? '' : posix.dirname(req.paths[0]);
  const instances: BundleInstance[] = [];
  const parsed = parseOrderedJson(instancesJson);
  for (const [iname, inst] of parsed instanceof Map ? parsed : []) {
    const module = field(inst, 'module');
    const digest = field(module, 'digest');
    instances.push({
      name: iname,
      namespace: field(inst, 'namespace') as string,
      module: { url: field(module, 'url') as string, version: field(module, 'version') as string, ...(typeof digest === 'string' ? { digest } : {}) },
      values: orderedToJson(field(inst, 'values') ?? new Map()),
      baseDir,
    });
  }
  if (instances.length === 0) throw new BundleError(`bundle ${name}`, [{ file: req.paths[0], message: 'bundle has no instances' }]);
  return { apiVersion, name, instances, files: [...req.paths], injected };
}
