/**
 * A signal aborted when any of `sources` is, with the same reason, and an
 * `unlink` that detaches it from the sources. AbortSignal.any does the same
 * without the unlink, through weak references. Each source gets one listener
 * of its own, shared by everything linked to it: an EventTarget looks for a
 * duplicate through all its listeners on every add and remove, and the
 * scheduler's shutdown signal is a source of every run in flight (at 10,000
 * agent runs those walks took a second and a half per digest).
 */
export function linkedSignal(sources: readonly AbortSignal[]): { signal: AbortSignal; unlink: () => void } {
  const controller = new AbortController();
  const aborted = sources.find((s) => s.aborted);
  if (aborted) {
    controller.abort(aborted.reason);
    return { signal: controller.signal, unlink: () => undefined };
  }
  const onAbort = (reason: unknown) => {
    unlink();
    controller.abort(reason);
  };
  const unlink = () => {
    for (const source of sources) dependantsOf.get(source)?.delete(onAbort);
  };
  for (const source of sources) dependants(source).add(onAbort);
  return { signal: controller.signal, unlink };
}

type Dependant = (reason: unknown) => void;
const dependantsOf = new WeakMap<AbortSignal, Set<Dependant>>();

/** The source's dependants, with its one listener added the first time. */
function dependants(source: AbortSignal): Set<Dependant> {
  let set = dependantsOf.get(source);
  if (!set) {
    const created = new Set<Dependant>();
    set = created;
    dependantsOf.set(source, created);
    source.addEventListener(
      'abort',
      () => {
        dependantsOf.delete(source);
        for (const dependant of created) dependant(source.reason);
      },
      { once: true },
    );
  }
  return set;
}

/** How many linked signals still depend on `source` (for tests). */
export function dependantCount(source: AbortSignal): number {
  return dependantsOf.get(source)?.size ?? 0;
}
