// A known path with a method it does not declare answers 405 with `Allow`,
// not 404: the path exists, the method does not. Read from the router's own
// route table, so it always agrees with the routes declared.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mayMatch } from './route-prefix';

interface RouteLayer {
  route?: { path?: unknown; methods: Record<string, boolean> };
  match(path: string): boolean;
}

export interface MethodNotAllowedOptions {
  /** the Express router's layers, read at request time (routes are added after this middleware) */
  layers(): RouteLayer[];
}

export function methodNotAllowed(options: MethodNotAllowedOptions): (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void {
  return (req, _res, next) => {
    const method = (req.method ?? 'GET').toLowerCase();
    if (method === 'options') return next();
    const path = (req.url ?? '/').split('?')[0];
    const lower = path.toLowerCase();
    const allowed = new Set<string>();
    for (const layer of options.layers()) {
      if (!layer.route || !mayMatch(layer, lower) || !layer.match(path)) continue;
      const methods = Object.keys(layer.route.methods).filter((m) => layer.route!.methods[m]);
      if (methods.includes(method) || methods.includes('_all') || (method === 'head' && methods.includes('get'))) return next();
      for (const m of methods) allowed.add(m.toUpperCase());
    }
    if (allowed.size === 0) return next();
    if (allowed.has('GET')) allowed.add('HEAD');
    const allow = [...allowed].sort().join(', ');
    const err = Object.assign(new Error(`${req.method} is not allowed on ${path}; allowed: ${allow}`), { status: 405, expose: true, allow });
    next(err);
  };
}
