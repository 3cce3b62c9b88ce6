// §5.1: fields owned by kubectl or Helm become Timoni's before the first apply, and their
// bookkeeping annotations go, so later applies can remove fields those tools had set.
import { FIELD_MANAGER, TAKEOVER_ANNOTATIONS, TAKEOVER_MANAGERS } from './constants';
import type { KubeObject, ManagedFieldsEntry } from './types';

export interface JsonPatchOp {
  op: 'replace' | 'remove' | 'add' | 'test';
  path: string;
  value?: unknown;
}

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

function isTakenOver(entry: ManagedFieldsEntry): boolean {
  return (
    !entry.subresource &&
    TAKEOVER_MANAGERS.some((m) => (entry.manager ?? '').startsWith(m.name) && entry.operation === m.operation)
  );
}

/** The JSON patch that re-assigns kubectl/Helm managed fields to `manager`; empty when nothing to do. */
export function ownershipTakeoverPatch(live: KubeObject, manager = FIELD_MANAGER): JsonPatchOp[] {
  const ops: JsonPatchOp[] = [];
  const entries = live.metadata.managedFields ?? [];
  if (entries.some(isTakenOver)) {
    const renamed = entries.map((e) => {
      if (!isTakenOver(e)) return e;
      const { time: _time, ...rest } = e;
      return { ...rest, manager, operation: 'Apply' };
    });
    ops.push({ op: 'replace', path: '/metadata/managedFields', value: renamed });
  }
  const annotations = live.metadata.annotations ?? {};
  for (const key of TAKEOVER_ANNOTATIONS) {
    if (key in annotations) ops.push({ op: 'remove', path: `/metadata/annotations/${escapePointer(key)}` });
  }
  return ops;
}
