// Structured and readable diffs between a live object and its dry-run result.
import { stringifyExactJson } from '@flotilla/json';
import { semanticEqual } from './object-drift';

export interface FieldChange {
  /** dotted path with list indexes, e.g. `spec.template.spec.containers[0].image` */
  path: string;
  kind: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

/** Metadata the server owns; left out of diffs so they show what the user changed. */
const IGNORED_PATHS = new Set([
  'metadata.managedFields',
  'metadata.resourceVersion',
  'metadata.generation',
  'metadata.uid',
  'metadata.creationTimestamp',
  'status',
]);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function join(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  const safe = /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
  return path ? `${path}.${safe}` : safe;
}

/** Field-level changes from `before` to `after`, in a stable order (keys sorted). */
export function diffObjects(before: unknown, after: unknown, path = ''): FieldChange[] {
  if (IGNORED_PATHS.has(path)) return [];
  if (semanticEqual(before, after)) return [];
  if (before === undefined) return [{ path, kind: 'added', after }];
  if (after === undefined) return [{ path, kind: 'removed', before }];
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) => diffObjects(before[k], after[k], join(path, k)));
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    return before.flatMap((b, i) => diffObjects(b, after[i], join(path, i)));
  }
  return [{ path, kind: 'changed', before, after }];
}

function show(v: unknown): string {
  return typeof v === 'string' ? v : stringifyExactJson(v);
}

/** Readable text, one block per changed path (in the spirit of Timoni's dyff output). */
export function formatDiff(subject: string, changes: FieldChange[]): string {
  if (!changes.length) return '';
  const lines = [subject];
  for (const c of changes) {
    lines.push(`  ${c.path || '(object)'}`);
    if (c.kind === 'added') lines.push(`    + ${show(c.after)}`);
    else if (c.kind === 'removed') lines.push(`    - ${show(c.before)}`);
    else lines.push(`    - ${show(c.before)}`, `    + ${show(c.after)}`);
  }
  return lines.join('\n');
}
