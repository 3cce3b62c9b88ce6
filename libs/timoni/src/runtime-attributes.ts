// `@timoni(runtime:TYPE:NAME)` injection (§3.3): fields whose NAME has a value
// get that value as a literal, keeping label and ?/! marker; absent names
// keep the field untouched so its CUE default applies.
import { CueEvaluationError, type AttributeField, type CueEngine, type FileTree, type TypedValue } from '@flotilla/cue';
import { RuntimeAttributeError, type TimoniIssue } from './errors';
import type { RuntimeValues, TenantOptions } from './types';

export interface RuntimeAttribute {
  field: AttributeField;
  type: string;
  name: string;
}

/** Parses an attribute body; undefined when it is not a runtime attribute. */
export function parseRuntimeAttribute(field: AttributeField): RuntimeAttribute | undefined {
  const parts = field.body.split(':').map((p) => p.trim());
  if (parts.length !== 3 || parts[0] !== 'runtime') return undefined;
  return { field, type: parts[1], name: parts[2] };
}

/** The literal for one attribute, or an issue naming the field. */
export function typedValue(attr: RuntimeAttribute, value: string): TypedValue | TimoniIssue {
  const where = { file: attr.field.file, line: attr.field.line, column: attr.field.column };
  switch (attr.type) {
    case 'string':
      return { kind: 'string', text: value };
    case 'number':
      return { kind: 'number', text: value.trim() };
    case 'bool':
      if (value === 'true' || value === 'false') return { kind: 'bool', text: value };
      return { ...where, message: `failed to parse attribute ${attr.field.body} on ${attr.field.path}: "${value}" is not a bool (true or false)` };
    default:
      return { ...where, message: `unknown runtime attribute type "${attr.type}" on ${attr.field.path} (string, number or bool)` };
  }
}

export interface InjectResult {
  files: FileTree;
  /** Every NAME read, with the value used (undefined: default kept). */
  injected: Record<string, string | undefined>;
}

/** Rewrites the .cue files of `paths` in the tree; other files pass through. */
export async function injectRuntimeValues(cue: CueEngine, tree: FileTree, paths: readonly string[], values: RuntimeValues, options: TenantOptions = {}): Promise<InjectResult> {
  const cueFiles = paths.filter((p) => p.endsWith('.cue'));
  const out: FileTree = { ...tree };
  const injected: Record<string, string | undefined> = {};
  if (cueFiles.length === 0) return { files: out, injected };
  const sources: FileTree = {};
  for (const p of cueFiles) sources[p] = tree[p];
  const fields = await cue.listAttributes({ files: sources, name: 'timoni' }, { tenant: options.tenant });
  const issues: TimoniIssue[] = [];
  const byFile = new Map<string, Array<{ fieldOffset: number; value: TypedValue }>>();
  for (const f of fields) {
    const attr = parseRuntimeAttribute(f);
    if (!attr) continue;
    const has = Object.prototype.hasOwnProperty.call(values, attr.name);
    injected[attr.name] = has ? values[attr.name] : undefined;
    if (!has) continue;
    const v = typedValue(attr, values[attr.name]);
    if ('message' in v) {
      issues.push(v);
      continue;
    }
    const list = byFile.get(f.file) ?? [];
    list.push({ fieldOffset: f.fieldOffset, value: v });
    byFile.set(f.file, list);
  }
  for (const [file, replacements] of byFile) {
    try {
      out[file] = await cue.rewriteFields({ path: file, content: tree[file], replacements }, { tenant: options.tenant });
    } catch (err) {
      if (!(err instanceof CueEvaluationError)) throw err;
      for (const d of err.diagnostics) issues.push({ file: d.file ?? file, line: d.line, column: d.column, message: `failed to parse attribute: ${d.message}` });
    }
  }
  if (issues.length > 0) throw new RuntimeAttributeError('runtime attributes', issues);
  return { files: out, injected };
}
