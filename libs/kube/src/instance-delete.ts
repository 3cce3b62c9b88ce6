// §5.8: delete an instance — its objects in reverse order, wait for them to go, the state Secret last.
import { deleteObjects } from './resources-delete';
import { InstanceStorage } from './inventory-storage';
import { recordObjects } from './instance-state';
import type { ObjectClient } from './object-client';
import { defaultWaitOptions, targetOfRef, waitForTermination, type WaitOptions } from './resources-wait';
import { inventoryEntryId } from './object-id';
import type { ChangeSet, VersionedObjectRef } from './types';

export interface InstanceDeleteOptions {
  /** wait for the objects to disappear before removing the state Secret (Timoni default) */
  wait: boolean;
  termination: WaitOptions;
}

export function defaultInstanceDeleteOptions(): InstanceDeleteOptions {
  return { wait: true, termination: defaultWaitOptions() };
}

/**
 * Deletes the objects of the stored and pending inventories, then the state Secret. With `wait`
 * the Secret is first annotated `status.timoni.sh/deleting` and kept if termination times out,
 * so a retry finds the inventory. Returns undefined when there is no such instance.
 */
export async function deleteInstance(
  client: ObjectClient,
  instance: { name: string; namespace: string },
  options: InstanceDeleteOptions = defaultInstanceDeleteOptions(),
): Promise<ChangeSet | undefined> {
  const storage = new InstanceStorage(client);
  const stored = await storage.read(instance.namespace, instance.name);
  if (!stored) return undefined;
  const seen = new Set<string>();
  const refs: VersionedObjectRef[] = [];
  for (const r of [...recordObjects(stored.record), ...recordObjects(stored.pending)]) {
    const id = inventoryEntryId(r);
    if (!seen.has(id)) refs.push(r);
    seen.add(id);
  }
  if (options.wait) await storage.markDeleting(instance.namespace, instance.name);
  const cs = await deleteObjects(client, refs, { instance, propagationPolicy: 'Background' });
  if (options.wait) {
    const deleted = cs.entries.filter((e) => e.action === 'deleted').map((e) => targetOfRef(e.ref));
    await waitForTermination(client, deleted, options.termination);
  }
  await storage.delete(instance.namespace, instance.name);
  return cs;
}
