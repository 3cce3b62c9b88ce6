import { request } from 'node:https';
import type { KubeEndpoint } from './types';

/** How to call the API server; only `token` is required. */
export interface KubeRequestOptions {
  /** bearer token of the caller */
  token: string;
  /** HTTP method; GET when absent */
  method?: string;
  /** JSON-encoded when present */
  body?: unknown;
  /** defaults to application/json */
  contentType?: string;
  /** defaults to application/json (e.g. `application/json;as=Table;v=v1;g=meta.k8s.io` for tables) */
  accept?: string;
  /** sent as Impersonate-User */
  impersonateUser?: string;
  /** each sent as its own Impersonate-Group header line */
  impersonateGroups?: string[];
  /** milliseconds; defaults to 10 s */
  timeoutMs?: number;
}

export interface KubeResponse {
  status: number;
  text: string;
  /** parsed JSON body, or undefined when the body is not JSON */
  json: unknown;
}

/** A minimal HTTPS call to the API server that trusts only the harness CA. */
export function kubeRequest(
  endpoint: Pick<KubeEndpoint, 'server' | 'caData'>,
  path: string,
  options: KubeRequestOptions,
): Promise<KubeResponse> {
  const headers: Record<string, string | string[]> = {
    Authorization: `Bearer ${options.token}`,
    Accept: options.accept ?? 'application/json',
  };
  if (options.impersonateUser) headers['Impersonate-User'] = options.impersonateUser;
  // Node writes an array value as repeated header lines, which the API server requires.
  if (options.impersonateGroups?.length) headers['Impersonate-Group'] = options.impersonateGroups;
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  if (body !== undefined) headers['Content-Type'] = options.contentType ?? 'application/json';

  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, endpoint.server),
      { method: options.method ?? 'GET', headers, ca: endpoint.caData, timeout: options.timeoutMs ?? 10_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, text, json });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${options.method ?? 'GET'} ${path}: no answer from ${endpoint.server}`)));
    req.on('error', (err) =>
      reject(new Error(`${options.method ?? 'GET'} ${endpoint.server}${path} failed: ${err.message}`, { cause: err })),
    );
    req.end(body);
  });
}
