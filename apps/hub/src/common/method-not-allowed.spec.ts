import type { IncomingMessage } from 'node:http';
import { methodNotAllowed } from './method-not-allowed';

// Express matches case-insensitively and ignores a trailing slash; these stand in for its layers.
function layer(path: string, regex: RegExp, methods: string[]) {
  return { route: { path, methods: Object.fromEntries(methods.map((m) => [m, true])) }, match: (p: string) => regex.test(p) };
}
const layers = [
  layer('/api/v1/clusters', /^\/api\/v1\/clusters\/?$/i, ['get', 'post']),
  layer('/api/v1/clusters/:name', /^\/api\/v1\/clusters\/[^/]+\/?$/i, ['get', 'patch', 'delete']),
  layer('/api/v1/tokens', /^\/api\/v1\/tokens\/?$/i, ['get']),
];

function outcome(method: string, url: string): unknown {
  let result: unknown = 'not called';
  methodNotAllowed({ layers: () => layers as never })({ method, url } as IncomingMessage, {} as never, (err) => (result = err ?? 'next'));
  return result;
}

describe('methodNotAllowed', () => {
  it('passes a method a route declares, and a path no route has', () => {
    expect(outcome('GET', '/api/v1/clusters?limit=5')).toBe('next');
    expect(outcome('DELETE', '/api/v1/clusters/east')).toBe('next');
    expect(outcome('HEAD', '/api/v1/tokens')).toBe('next');
    expect(outcome('DELETE', '/api/v1/nothing')).toBe('next');
  });

  it('refuses a method the path does not declare with 405 and Allow, whatever the case of the path', () => {
    for (const url of ['/api/v1/tokens', '/API/V1/Tokens/']) {
      expect(outcome('POST', url)).toMatchObject({ status: 405, allow: 'GET, HEAD' });
    }
    expect(outcome('PUT', '/api/v1/Clusters/east')).toMatchObject({ status: 405, allow: 'DELETE, GET, HEAD, PATCH' });
  });
});
