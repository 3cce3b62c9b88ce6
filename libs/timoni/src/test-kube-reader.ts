// A minimal RuntimeObjectReader over the harness API server for specs
// (libs/kube provides the real one, with discovery).
import { kubeRequest } from '../../../test/harness/kube-http';
import type { KubeEndpoint } from '../../../test/harness/types';
import type { KubeObject, RuntimeObjectReader, RuntimeObjectRef } from './types';

export function objectPath(ref: RuntimeObjectRef): string {
  const base = ref.apiVersion.includes('/') ? `/apis/${ref.apiVersion}` : `/api/${ref.apiVersion}`;
  const plural = `${ref.kind.toLowerCase()}s`;
  return ref.namespace ? `${base}/namespaces/${ref.namespace}/${plural}/${ref.name}` : `${base}/${plural}/${ref.name}`;
}

export function harnessReader(kube: KubeEndpoint): RuntimeObjectReader & { gets: number } {
  const reader = {
    gets: 0,
    async get(ref: RuntimeObjectRef): Promise<KubeObject | null> {
      reader.gets++;
      const res = await kubeRequest(kube, objectPath(ref), { token: kube.admin.token });
      if (res.status === 404) return null;
      if (res.status !== 200) throw new Error(`GET ${objectPath(ref)}: ${res.status} ${res.text}`);
      return res.json as KubeObject;
    },
  };
  return reader;
}

/** Creates (or replaces) an object with the admin token. */
export async function putObject(kube: KubeEndpoint, obj: KubeObject): Promise<void> {
  const ref = { apiVersion: obj.apiVersion, kind: obj.kind, namespace: obj.metadata.namespace, name: obj.metadata.name };
  const path = objectPath(ref);
  const collection = path.slice(0, path.lastIndexOf('/'));
  await kubeRequest(kube, path, { token: kube.admin.token, method: 'DELETE' });
  const res = await kubeRequest(kube, collection, { token: kube.admin.token, method: 'POST', body: obj });
  if (res.status >= 300) throw new Error(`POST ${collection}: ${res.status} ${res.text}`);
}
