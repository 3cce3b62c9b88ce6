// Diff by server-side dry run against the live objects; Secret values masked.
import { changeSetEntry } from './changeset';
import { FIELD_MANAGER } from './constants';
import { DryRunError, NotFoundError, UnknownKindError } from './errors';
import { isImmutableError } from './resources-apply';
import { diffObjects, formatDiff, type FieldChange } from './object-diff';
import { hasDrifted } from './object-drift';
import { addressOf, type ObjectClient } from './object-client';
import { objectRef } from './object-id';
import { unifiedObjectDiff } from './object-unified-diff';
import { maskSecrets } from './secret-mask';
import type { ChangeAction, KubeObject, VersionedObjectRef } from './types';

export interface DiffEntry {
  ref: VersionedObjectRef;
  subject: string;
  /** created, configured or unchanged */
  action: ChangeAction;
  /** field changes from live to dry-run result (Secret values masked) */
  changes: FieldChange[];
  /** readable form of `changes`; empty when unchanged */
  text: string;
  /** unified diff of the live object and the dry-run result (Secret values masked); empty when unchanged */
  unified: string;
}

/**
 * Dry-runs each object (no writes) and reports what an apply would change. Objects whose
 * namespace or kind does not exist yet are reported as created, with the rendered object.
 */
export async function diffAll(client: ObjectClient, objects: readonly KubeObject[]): Promise<DiffEntry[]> {
  const out: DiffEntry[] = [];
  for (const obj of objects) {
    const ref = objectRef(obj);
    const subject = changeSetEntry(ref, 'unchanged').subject;
    let live: KubeObject | undefined;
    let dryRun: KubeObject;
    try {
      live = await client.getOptional(addressOf(obj));
      dryRun = await client.apply(obj, { dryRun: true, force: true, fieldManager: FIELD_MANAGER });
    } catch (err) {
      // its namespace or CRD is part of the same change and does not exist yet: it would be created
      if (!live && (err instanceof UnknownKindError || err instanceof NotFoundError)) {
        dryRun = obj;
      } else {
        throw new DryRunError(subject, isImmutableError(err), { cause: err });
      }
    }
    const action: ChangeAction = !live ? 'created' : hasDrifted(live, dryRun) ? 'configured' : 'unchanged';
    if (action === 'unchanged') {
      out.push({ ref, subject, action, changes: [], text: '', unified: '' });
      continue;
    }
    const [before, after] = maskSecrets(live, dryRun);
    const changes = diffObjects(before, after);
    out.push({ ref, subject, action, changes, text: formatDiff(`${subject} (${action})`, changes), unified: unifiedObjectDiff(subject, live, dryRun) });
  }
  return out;
}
