import { DemoError } from './demo-errors';

// a hub on a busy machine answers in well under this
const CALL_TIMEOUT_MS = 30_000;

/** REST calls to the demo's hub as admin. */
export class HubClient {
  constructor(
    readonly url: string,
    private readonly token: string,
  ) {}

  /** The parsed JSON body of `method path`; fails naming the route unless the status is `expected`. */
  async call<T = unknown>(expected: number, method: string, path: string, body?: unknown): Promise<T> {
    const text = await this.text(expected, method, path, body);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** The body of `method path` as text (e.g. YAML); fails naming the route unless the status is `expected`. */
  async text(expected: number, method: string, path: string, body?: unknown): Promise<string> {
    let res: Response;
    try {
      res = await fetch(`${this.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
    } catch (err) {
      throw new DemoError(`hub ${this.url}: ${method} ${path} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    const text = await res.text();
    if (res.status !== expected) throw new DemoError(`hub ${this.url}: ${method} ${path}: expected HTTP ${expected}, got ${res.status}: ${text.slice(0, 1000)}`);
    return text;
  }
}

export interface TargetView {
  cluster: string;
  phase: string;
  lastAppliedRevision: string | null;
}

/** The Project's Targets, one per cluster. */
export async function projectTargets(hub: HubClient, project: string): Promise<TargetView[]> {
  const body = await hub.call<{ items: TargetView[] }>(200, 'GET', `/api/v1/projects/${project}/targets`);
  return body.items;
}
