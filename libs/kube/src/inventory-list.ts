// Inventory (`timoni.<instance>`) Secrets found by label selector: cluster-wide when the
// identity may list Secrets everywhere, otherwise namespace by namespace over the ones given
// (a namespace it may not read cannot hold an instance it applied).
import { APP_NAME_LABEL, STATE_SECRET_PREFIX } from './constants';
import { ForbiddenError, InventoryListError } from './errors';
import type { ObjectClient } from './object-client';
import type { KubeObject } from './types';

export interface InventoryRef {
  /** the instance name (the Secret is `timoni.<name>`) */
  name: string;
  namespace: string;
  /** the Secret's labels */
  labels: Record<string, string>;
}

export async function listInventories(client: ObjectClient, labelSelector: string, fallbackNamespaces: readonly string[] = []): Promise<InventoryRef[]> {
  let secrets: KubeObject[];
  try {
    secrets = await client.list('v1', 'Secret', { labelSelector });
  } catch (err) {
    if (!(err instanceof ForbiddenError)) throw new InventoryListError(undefined, { cause: err });
    secrets = [];
    for (const namespace of [...new Set(fallbackNamespaces)].sort()) {
      try {
        secrets.push(...(await client.list('v1', 'Secret', { namespace, labelSelector })));
      } catch (e) {
        if (!(e instanceof ForbiddenError)) throw new InventoryListError(namespace, { cause: e });
      }
    }
  }
  return secrets.map((s) => {
    const labels = s.metadata.labels ?? {};
    return { name: labels[APP_NAME_LABEL] ?? s.metadata.name.slice(STATE_SECRET_PREFIX.length), namespace: s.metadata.namespace ?? '', labels };
  });
}
