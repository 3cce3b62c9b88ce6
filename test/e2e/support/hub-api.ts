import { adminCall, type ApiResponse } from './admin-call';
import type { HubProcess } from './hub-process';

// REST calls to one hub process as admin, for suites that start hubs
// themselves (a restored hub is not a replica of a HubFleet).

// a hub on a busy machine answers in well under this; a hung call fails the test with the route
const CALL_TIMEOUT_MS = 30_000;

export class HubApi {
  constructor(
    readonly hub: HubProcess,
    private readonly adminToken: string,
  ) {}

  async call(method: string, path: string, body?: unknown): Promise<ApiResponse> {
    return adminCall(await this.hub.url, this.adminToken, method, path, body, CALL_TIMEOUT_MS);
  }

  /** Like call(), but fails naming the route and the hub when the status is not `expected`. */
  async expectCall(expected: number, method: string, path: string, body?: unknown): Promise<ApiResponse> {
    const res = await this.call(method, path, body);
    if (res.status !== expected) throw new Error(`hub ${this.hub.id}: ${method} ${path}: expected HTTP ${expected}, got ${res.status}: ${res.text.slice(0, 2000)}`);
    return res;
  }
}
