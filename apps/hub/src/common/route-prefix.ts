// The 405 check and the audit trail both look for the routes a path matches
// in Express's route table; most routes are ruled out by their fixed start.

interface PathedLayer {
  route?: { path?: unknown };
}

const literalPrefixes = new WeakMap<PathedLayer, string>();

/**
 * Whether a route could match `lowerPath` (the request path lower-cased, as
 * Express matches case-insensitively): the route's path up to its first
 * parameter must start it. startsWith is far cheaper than the route's regex,
 * which still decides.
 */
export function mayMatch(layer: PathedLayer, lowerPath: string): boolean {
  let prefix = literalPrefixes.get(layer);
  if (prefix === undefined) {
    const path = layer.route?.path;
    prefix = typeof path === 'string' ? path.split(/[:*({]/)[0].toLowerCase() : '';
    literalPrefixes.set(layer, prefix);
  }
  return lowerPath.startsWith(prefix);
}
