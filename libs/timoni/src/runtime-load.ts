// Runtime files (§4.1): one package, #Runtime definitions available but not
// bound; name, clusters (field order) and value queries read.
import { CueEvaluationError, parseOrderedJson, type CueEngine, type FileTree, type OrderedValue } from '@flotilla/cue';
import { checkSourceFiles } from './bundle-load';
import { field, textOf } from './cue-source';
import { RuntimeError, issuesFromDiagnostics, type TimoniIssue } from './errors';
import { RUNTIME_SCHEMA } from './schemas';
import type { RuntimeCluster, RuntimeDefinition, RuntimeQuery, TenantOptions } from './types';

export async function loadRuntime(cue: CueEngine, files: FileTree, paths: string[], options: TenantOptions = {}): Promise<RuntimeDefinition> {
  const pre = checkSourceFiles('runtime', files, paths);
  if (pre.length > 0) throw new RuntimeError('runtime', pre);
  // Appended to the first CUE file: files without a package clause do not
  // see each other's definitions, and appending keeps the user's line numbers.
  const first = paths.find((p) => p.endsWith('.cue'));
  const withSchema: FileTree = first ? { ...files, [first]: `${textOf(files, first)}\n${RUNTIME_SCHEMA}` } : files;
  let exported;
  try {
    const res = await cue.evaluate({
      files: withSchema,
      entries: paths,
      exports: [
        { path: 'runtime.name', optional: true },
        { path: 'runtime.clusters', optional: true },
        { path: 'runtime.values', optional: true },
      ],
    }, { tenant: options.tenant });
    exported = res.exports;
  } catch (err) {
    if (err instanceof CueEvaluationError) {
      const userLines = first ? textOf(files, first).split('\n').length : 0;
      const issues = issuesFromDiagnostics(err.diagnostics, undefined, (file, line) => file === first && line > userLines);
      throw new RuntimeError(`runtime ${paths.join(', ')}`, issues, { cause: err });
    }
    throw err;
  }
  const issues: TimoniIssue[] = [];
  const name = exported[0].exists ? (JSON.parse(exported[0].json!) as unknown) : undefined;
  if (typeof name !== 'string') issues.push({ file: paths[0], message: 'runtime.name (a string) is required' });
  const clusters: RuntimeCluster[] = [];
  const rawClusters = exported[1].exists ? parseOrderedJson(exported[1].json!) : new Map<string, OrderedValue>();
  for (const [cname, c] of rawClusters instanceof Map ? rawClusters : []) {
    const group = field(c, 'group');
    const kubeContext = field(c, 'kubeContext');
    if (typeof group !== 'string') issues.push({ file: paths[0], message: `runtime.clusters.${cname}.group (a string) is required` });
    clusters.push({ name: cname, group: String(group ?? ''), kubeContext: typeof kubeContext === 'string' ? kubeContext : '' });
  }
  const values: RuntimeQuery[] = [];
  const rawValues = exported[2].exists ? parseOrderedJson(exported[2].json!) : [];
  for (const [i, v] of (Array.isArray(rawValues) ? rawValues : []).entries()) {
    const query = field(v, 'query');
    const forExpr = field(v, 'for');
    if (typeof query !== 'string') issues.push({ file: paths[0], message: `runtime.values[${i}].query (a string) is required` });
    const pairs: Array<[string, string]> = forExpr instanceof Map ? [...forExpr].map(([k, e]) => [k, String(e)]) : [];
    values.push({ query: String(query), for: pairs, optional: field(v, 'optional') === true });
  }
  if (issues.length > 0) throw new RuntimeError(`runtime ${paths.join(', ')}`, issues);
  return { name: name as string, clusters, values, files: [...paths] };
}
