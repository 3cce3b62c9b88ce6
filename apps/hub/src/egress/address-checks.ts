// Addresses API users name, checked when they are given (a clear 403 naming the field);
// the egress policy checks again on every connection, on the address actually connected to.
import { type EgressPolicy, isLoopbackHost } from '@flotilla/egress';

const POLICY_HINT = "the hub's egress policy refuses it (see FLOTILLA_EGRESS_ALLOW, FLOTILLA_EGRESS_DENY, FLOTILLA_EGRESS_ALLOW_LOOPBACK)";

function policyProblems(field: string, host: string, egress: EgressPolicy): string[] {
  const verdict = egress.checkHost(host);
  return verdict.allowed ? [] : [`${field}: ${verdict.reason}; ${POLICY_HINT}`];
}

/** A push cluster's server (`endpoint.server` or a kubeconfig's `server`, named as `field`); [] when the hub may try it. */
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
  return policyProblems(field, url.hostname, egress);
}

/** A Project's CDEvents sink; with a secret header it must be https:// unless on loopback. */
export function sinkProblems(sink: string, withHeader: boolean, egress: EgressPolicy): string[] {
  let url: URL;
  try {
    url = new URL(sink);
  } catch {
    return []; // the DTO reports a malformed URL
  }
  if (withHeader && url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return ['cdeventsSink: plain http:// would send cdeventsSinkHeader in clear; use https:// (http:// with a header is only accepted for loopback addresses)'];
  }
  return policyProblems('cdeventsSink', url.hostname, egress);
}

/** A Project's chat webhook: its host, by the egress policy (the DTO already refused plain http beyond loopback). */
export function webhookProblems(webhook: string, egress: EgressPolicy): string[] {
  let url: URL;
  try {
    url = new URL(webhook);
  } catch {
    return []; // the DTO reports a malformed URL
  }
  return policyProblems('notificationWebhook', url.hostname, egress);
}

/** A Project's `oci://host[:port]/repository`: the registry host. */
export function repositoryProblems(repository: string, egress: EgressPolicy): string[] {
  const rest = repository.startsWith('oci://') ? repository.slice('oci://'.length) : repository;
  const slash = rest.indexOf('/');
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  let host: string;
  try {
    host = new URL(`https://${authority}`).hostname;
  } catch {
    return []; // the DTO reports a malformed reference
  }
  return policyProblems('source.repository', host, egress);
}
