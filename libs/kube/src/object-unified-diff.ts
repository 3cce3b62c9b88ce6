// A unified diff (as `kubectl diff` prints) between a live object and what an
// apply would make of it, as YAML with the fields the server owns left out.
import { createTwoFilesPatch } from 'diff';
import { stringify } from 'yaml';
import { maskSecrets } from './secret-mask';
import type { KubeObject } from './types';

/** Server-owned metadata: showing it would bury the user's change under noise. */
const SERVER_METADATA = ['managedFields', 'resourceVersion', 'generation', 'uid', 'creationTimestamp'] as const;

/** The object as a user reads it: no status, no server-owned metadata; '' for none. */
export function readableYaml(obj: KubeObject | undefined): string {
  if (!obj) return '';
  const { status: _status, ...rest } = obj;
  const metadata = { ...(rest.metadata ?? {}) } as Record<string, unknown>;
  for (const key of SERVER_METADATA) delete metadata[key];
  return stringify({ ...rest, metadata }, { sortMapEntries: true, lineWidth: 0 });
}

/**
 * `--- live` / `+++ after` unified diff with `context` lines around each change;
 * Secret values masked first, so only which keys change shows. '' when equal.
 */
export function unifiedObjectDiff(subject: string, live: KubeObject | undefined, after: KubeObject | undefined, context = 3): string {
  const [before, next] = maskSecrets(live, after);
  const a = readableYaml(before);
  const b = readableYaml(next);
  if (a === b) return '';
  const patch = createTwoFilesPatch(`${subject} (live)`, `${subject} (after)`, a, b, undefined, undefined, { context });
  // drop jsdiff's "Index:" and "====" preamble: the ---/+++ lines name the object
  return patch.split('\n').filter((l, i) => !(i < 2 && (l.startsWith('Index:') || l.startsWith('====')))).join('\n').trimEnd() + '\n';
}
