// Which stored instances of a Project to delete after a run. Conservative:
// nothing that a component of this run might still own is touched.
import type { ComponentResult } from './types';

export interface StoredInstanceRef {
  name: string;
  namespace: string;
  /** the component label ('' when missing) */
  component: string;
  /** the owner label; absent on instances applied before owners were recorded */
  owner?: string;
}

/**
 * Instances this owner may prune or delete: its own and unlabelled ones
 * (applied before owners were recorded). With no owner, every instance.
 */
export function ownedBy<T extends StoredInstanceRef>(stored: readonly T[], owner: string | undefined): { own: T[]; foreign: T[] } {
  const own: T[] = [];
  const foreign: T[] = [];
  for (const s of stored) (!owner || !s.owner || s.owner === owner ? own : foreign).push(s);
  return { own, foreign };
}

export const instanceKey = (i: { name: string; namespace: string }) => `${i.namespace}/${i.name}`;

/**
 * An instance is pruned when no component of this run wants it and either
 * (a) its component succeeded (it left that component), or (b) its component
 * is no longer in the project and every component's instance list is known
 * (so it did not move to a component that failed before rendering its bundle).
 */
export function planPrune(stored: readonly StoredInstanceRef[], components: readonly ComponentResult[]): StoredInstanceRef[] {
  const desired = new Set<string>();
  let allKnown = true;
  for (const c of components) {
    if (c.instanceNames) for (const i of c.instanceNames) desired.add(instanceKey(i));
    else allKnown = false;
  }
  const byName = new Map(components.map((c) => [c.name, c]));
  return stored.filter((s) => {
    if (desired.has(instanceKey(s))) return false;
    const owner = byName.get(s.component);
    if (owner) return owner.status === 'Succeeded';
    return allKnown;
  });
}
