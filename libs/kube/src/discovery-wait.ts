import { UnknownKindError } from './errors';
import type { ObjectClient } from './object-client';
import type { WaitOptions } from './resources-wait';
import type { KubeObject } from './types';

interface CrdSpec {
  group?: string;
  names?: { kind?: string };
  versions?: Array<{ name?: string; served?: boolean }>;
}

/** `<group>/<version>` + kind of every version a CRD serves. */
export function servedKinds(crd: KubeObject): Array<{ apiVersion: string; kind: string }> {
  const spec = (crd.spec ?? {}) as CrdSpec;
  const kind = spec.names?.kind;
  if (!spec.group || !kind) return [];
  return (spec.versions ?? []).filter((v) => v.served && v.name).map((v) => ({ apiVersion: `${spec.group}/${v.name}`, kind }));
}

/**
 * Waits until discovery lists the kinds of just-applied CRDs. A CRD can be
 * Established a moment before its group version is served, and a busy API
 * server widens that gap: resolving the custom resources right away would
 * fail with UnknownKindError.
 */
export async function waitForServedKinds(client: ObjectClient, crds: readonly KubeObject[], options: WaitOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let pause = options.initialIntervalMs;
  for (const { apiVersion, kind } of crds.flatMap(servedKinds)) {
    for (;;) {
      try {
        await client.discovery.resolve(apiVersion, kind);
        break;
      } catch (err) {
        if (!(err instanceof UnknownKindError) || Date.now() + pause > deadline) throw err;
      }
      await new Promise((r) => setTimeout(r, pause));
      pause = Math.min(pause * 2, options.intervalMs);
      client.discovery.invalidate(apiVersion);
    }
  }
}
