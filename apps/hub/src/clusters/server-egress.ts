// Where a push cluster's server may be, checked when it is registered or changed (the
// same check for `endpoint.server` and a kubeconfig's `server`); the egress policy checks
// again on every connection, on the address actually connected to.
import { type EgressPolicy, isLoopbackHost } from '@flotilla/egress';

/** Problems with `server` (named as `field` in the messages); [] when the hub may try it. */
export function serverProblems(server: string, field: string, egress: EgressPolicy): string[] {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    return [`${field}: "${server}" is not a URL; expected https://host:port`];
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return [`${field}: must be an https:// URL`];
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return [`${field}: plain http:// would send the cluster's credentials in clear; use https:// (http:// is only accepted for loopback addresses)`];
  }
  const verdict = egress.checkHost(url.hostname);
  if (!verdict.allowed) return [`${field}: ${verdict.reason}; the hub's egress policy refuses it (see FLOTILLA_EGRESS_ALLOW, FLOTILLA_EGRESS_DENY, FLOTILLA_EGRESS_ALLOW_LOOPBACK)`];
  return [];
}
