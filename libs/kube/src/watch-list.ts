// The LIST half of a watch: every page of a collection and the resourceVersion to watch from.
import type { ClusterConnection } from './connection';
import { WatchEventError } from './errors';
import type { KubeObject } from './types';

export interface VersionedList {
  items: KubeObject[];
  /** the list's resourceVersion: a watch from it misses nothing and repeats nothing */
  resourceVersion: string;
}

interface ListPage {
  metadata?: { resourceVersion?: string; continue?: string };
  items?: KubeObject[];
}

/**
 * Lists in pages of `pageSize` (one consistent snapshot: the server keeps the first page's
 * version for the continuations; an expired continue token is a 410, and the caller relists).
 */
export async function listWithVersion(
  conn: ClusterConnection,
  path: string,
  target: { apiVersion: string; kind: string; labelSelector?: string; fieldSelector?: string },
  pageSize: number,
  subject: string,
): Promise<VersionedList> {
  const items: KubeObject[] = [];
  let token: string | undefined;
  let resourceVersion: string | undefined;
  do {
    const page = await conn.request<ListPage>({
      method: 'GET',
      path,
      query: { labelSelector: target.labelSelector, fieldSelector: target.fieldSelector, limit: pageSize, continue: token },
      subject: `${subject} list`,
    });
    // list items carry no apiVersion/kind
    for (const i of page?.items ?? []) items.push({ ...i, apiVersion: target.apiVersion, kind: target.kind });
    resourceVersion = page?.metadata?.resourceVersion;
    token = page?.metadata?.continue || undefined;
  } while (token);
  if (!resourceVersion) throw new WatchEventError(subject, 'list answered without metadata.resourceVersion');
  return { items, resourceVersion };
}
