// Prune and delete (§5.7 step 4, §5.8): reverse apply order, only objects carrying this
// instance's labels, never those marked `action.timoni.sh/prune: disabled`.
import { isPruneDisabled } from './action-annotations';
import { changeSetEntry } from './changeset';
import { INSTANCE_NAME_LABEL, INSTANCE_NAMESPACE_LABEL } from './constants';
import { DeleteError } from './errors';
import type { ObjectClient, PropagationPolicy } from './object-client';
import { sortForDelete } from './object-sort';
import type { InstanceIdentity } from './object-normalize';
import { targetOfRef } from './resources-wait';
import type { ChangeSet, KubeObject, VersionedObjectRef } from './types';

export interface DeleteOptions {
  /** only delete objects whose instance labels name this instance */
  instance: InstanceIdentity;
  propagationPolicy: PropagationPolicy;
}

/** Orders references like objects (kind table), reversed. */
export function sortRefsForDelete(refs: readonly VersionedObjectRef[]): VersionedObjectRef[] {
  const skeletons = refs.map((ref) => ({
    apiVersion: ref.group ? `${ref.group}/${ref.version}` : ref.version,
    kind: ref.kind,
    metadata: { name: ref.name, namespace: ref.namespace || undefined },
    ref,
  }));
  return sortForDelete(skeletons as Array<KubeObject & { ref: VersionedObjectRef }>).map((s) => s.ref);
}

function ownedBy(live: KubeObject, instance: InstanceIdentity): boolean {
  const labels = live.metadata.labels ?? {};
  return labels[INSTANCE_NAME_LABEL] === instance.name && labels[INSTANCE_NAMESPACE_LABEL] === instance.namespace;
}

/**
 * Deletes the given objects in reverse apply order. Missing objects count as deleted; foreign
 * and prune-disabled ones are skipped. Every object is attempted; failures are thrown together
 * as a DeleteError that carries the change set (those objects stay in the inventory).
 */
export async function deleteObjects(client: ObjectClient, refs: readonly VersionedObjectRef[], options: DeleteOptions): Promise<ChangeSet> {
  const cs: ChangeSet = { entries: [] };
  const failures: Array<{ subject: string; error: Error }> = [];
  for (const ref of sortRefsForDelete(refs)) {
    const target = targetOfRef(ref);
    try {
      const live = await client.getOptional(target.address);
      if (!live) {
        cs.entries.push(changeSetEntry(ref, 'deleted', 'already gone'));
      } else if (!ownedBy(live, options.instance)) {
        cs.entries.push(changeSetEntry(ref, 'skipped', 'not labelled as part of this instance'));
      } else if (isPruneDisabled(live)) {
        cs.entries.push(changeSetEntry(ref, 'skipped', 'prune disabled'));
      } else {
        await client.delete(target.address, options.propagationPolicy);
        cs.entries.push(changeSetEntry(ref, 'deleted'));
      }
    } catch (err) {
      failures.push({ subject: target.subject, error: err instanceof Error ? err : new Error(String(err)) });
    }
  }
  if (failures.length) throw new DeleteError(failures, cs);
  return cs;
}
