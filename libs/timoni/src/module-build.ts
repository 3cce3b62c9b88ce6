// One module build, the §2.2 pipeline: schema overlay, values overlay with
// the §2.3 merge, load with tags and tag vars, instance validation, apply
// steps in field order with object validation, health checks, images.
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { CueEvaluationError, parseOrderedJson, type CueEngine, type FileTree, type ValuesFile } from '@flotilla/cue';
import { parseExactJson } from '@flotilla/json';
import { packageOf, textOf } from './cue-source';
import { ModuleBuildError, issuesFromDiagnostics, type TimoniIssue } from './errors';
import { collectImages, stampInstanceLabels, stepObjects } from './object-validate';
import { TIMONI_SCHEMA } from './schemas';
import { withValuesOrigins } from './values-origins';
import type { ApplyStep, BuildContext, HealthCheckTarget, InstanceBuild, LoadedModule } from './types';

/** Offline builds use this kube version, as Timoni does without TIMONI_KUBE_VERSION. */
export const DEFAULT_KUBE_VERSION = '1.36.3';
export const DEVEL_VERSION = '0.0.0-devel';
/**
 * The path of a bundle instance's values, which the bundle builder writes as
 * JSON: no one wrote that file, so errors are not traced to it.
 */
export const BUNDLE_VALUES_FILE = 'bundle.values.json';

/**
 * The API server's gitVersion as Timoni passes it to modules (§2.2 step 3):
 * without the `v`, pre-release and build suffixes kept (`v1.30.2+k3s1` →
 * `1.30.2+k3s1`). Undefined when it is not a semantic version.
 */
export function kubeVersionOf(gitVersion: string): string | undefined {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.exec(gitVersion.trim());
  if (!m) return undefined;
  return `${Number(m[1])}.${Number(m[2] ?? 0)}.${Number(m[3] ?? 0)}${m[4] ?? ''}${m[5] ?? ''}`;
}

export interface BuildRequest {
  instance: string;
  namespace: string;
  module: LoadedModule;
  /** Values overlays applied in order over the module's values.cue (e.g. the bundle instance's values as JSON). */
  values: ValuesFile[];
  /** API server version without `v`; DEFAULT_KUBE_VERSION when absent. */
  kubeVersion?: string;
  /** Timoni's `-p`: the package directory and name; `main` at the root when absent. */
  package?: string;
  /** libs/cue tenant of the build's CUE calls; not in the build key, so equal inputs still build once. */
  tenant?: string;
}

/** Stable key of everything that decides the rendered objects. */
export function buildKey(req: BuildRequest): string {
  const h = createHash('sha256');
  const put = (s: string | Uint8Array) => h.update(String(typeof s === 'string' ? s.length : s.byteLength)).update(':').update(s);
  const m = req.module.ref;
  put(m.digest !== 'unknown' ? m.digest : req.module.treeHash);
  put(m.name);
  put(m.version);
  put(req.instance);
  put(req.namespace);
  put(req.kubeVersion ?? DEFAULT_KUBE_VERSION);
  put(req.package ?? '');
  for (const v of req.values) {
    put(v.path);
    put(v.content);
  }
  return `sha256:${h.digest('hex')}`;
}

export function hashTree(tree: FileTree): string {
  const h = createHash('sha256');
  for (const p of Object.keys(tree).sort()) {
    const c = tree[p];
    h.update(`${p}\0${typeof c === 'string' ? Buffer.byteLength(c) : c.byteLength}\0`).update(c);
  }
  return `sha256:${h.digest('hex')}`;
}

export async function buildModule(cue: CueEngine, req: BuildRequest): Promise<InstanceBuild> {
  const fail = (issues: TimoniIssue[], cause?: unknown): never => {
    throw new ModuleBuildError(req.instance, issues, { cause });
  };
  const tree = req.module.tree;
  const dir = req.package ?? '';
  const at = (name: string) => (dir ? posix.join(dir, name) : name);
  const call = { tenant: req.tenant };
  const layout = ['cue.mod/module.cue', 'timoni.cue', at('values.cue')].filter((p) => tree[p] === undefined);
  if (layout.length > 0) fail(layout.map((p) => ({ message: `module ${req.module.ref.repository} has no ${p}` })));
  const pkg = req.package ?? packageOf(textOf(tree, at('values.cue'))) ?? 'main';

  // §2.3: the instance values laid over the module defaults.
  let mergedCue: string;
  let storedCue: string;
  const mergeRequest = { base: { path: at('values.cue'), content: tree[at('values.cue')] }, overlays: req.values };
  try {
    const merged = await cue.mergeValues(mergeRequest, call);
    mergedCue = merged.cue;
    storedCue = merged.stored;
  } catch (err) {
    if (err instanceof CueEvaluationError) fail(issuesFromDiagnostics(err.diagnostics, 'values'), err);
    throw err;
  }

  const moduleVersion = req.module.ref.version || DEVEL_VERSION;
  const kubeVersion = req.kubeVersion ?? DEFAULT_KUBE_VERSION;
  // Byte for byte Timoni's overlay, so the checksum of a config is Timoni's too.
  const generated = { path: at('values.cue'), content: `package ${pkg}\nvalues: ${mergedCue}` };
  const context: BuildContext = {
    tree: {
      ...tree,
      [generated.path]: generated.content,
      [at('timoni.schema.cue')]: `package ${pkg}\n\n${TIMONI_SCHEMA}`,
    },
    dir,
    package: pkg,
    tags: { name: req.instance, namespace: req.namespace },
    tagVars: { moduleVersion, kubeVersion },
  };
  let exported;
  try {
    const res = await cue.evaluate({
      files: context.tree,
      dir: context.dir,
      package: context.package,
      tags: context.tags,
      tagVars: context.tagVars,
      checks: [{ path: 'timoni.instance', concrete: true, final: true }],
      exports: [
        { path: 'timoni.apply', fields: true, yamlCompat: true },
        { path: 'timoni.instance.config', optional: true },
        { path: '_flotillaHealthTargets', optional: true },
      ],
    }, call);
    exported = res.exports;
  } catch (err) {
    if (err instanceof CueEvaluationError) fail(issuesFromDiagnostics(await withValuesOrigins(cue, err.diagnostics, generated, mergeRequest, { call, untraced: [BUNDLE_VALUES_FILE] })), err);
    throw err;
  }

  const issues: TimoniIssue[] = [];
  const steps: ApplyStep[] = [];
  for (const f of exported[0].fields ?? []) {
    const { objects, issues: stepIssues } = stepObjects(f.label, parseExactJson(f.json!));
    issues.push(...stepIssues);
    for (const o of objects) stampInstanceLabels(o, req.instance, req.namespace);
    steps.push({ name: f.label, objects });
  }
  const healthChecks: HealthCheckTarget[] = [];
  if (exported[2].exists) {
    const targets = parseOrderedJson(exported[2].json!);
    const seen = new Map<string, string>();
    for (const [name, t] of targets instanceof Map ? targets : []) {
      const group = (t as Map<string, string>).get('group') ?? '';
      const kind = (t as Map<string, string>).get('kind');
      const target = `${group}/${kind ?? '*'}`;
      const other = seen.get(target);
      if (other) issues.push({ message: `timoni.healthChecks.${name} targets ${target} as ${other} does` });
      seen.set(target, name);
      healthChecks.push({ name, group, ...(kind !== undefined ? { kind } : {}) });
    }
  }
  if (issues.length > 0) fail(issues);
  const images = exported[1].exists ? collectImages(parseExactJson(exported[1].json!)) : [];
  return {
    instance: req.instance,
    namespace: req.namespace,
    module: { ...req.module.ref, version: moduleVersion },
    values: storedCue,
    steps,
    images,
    healthChecks,
    kubeVersion,
    moduleVersion,
    key: buildKey(req),
    context,
  };
}
