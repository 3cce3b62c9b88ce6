// Which token endpoints may receive a registry's credentials. A registry's
// 401 names its token realm; a registry that is not the one the credentials
// were given for must not be able to send them anywhere it likes.
import { isIP } from 'node:net';
import { DOCKER_HUB } from './reference';

/** Token services that live on another host than their registry. */
const KNOWN_TOKEN_HOSTS: ReadonlyMap<string, readonly string[]> = new Map([[DOCKER_HUB, ['auth.docker.io']]]);

/**
 * True when `realm` may receive the credentials of `registry` (host[:port]):
 * the realm is on the registry's own host and port, or, over HTTPS on the
 * default port, on a parent domain of the registry's host name (whoever holds
 * `gitlab.com` holds `registry.gitlab.com` too), or it is the known token
 * service of Docker Hub.
 */
export function realmMayReceiveCredentials(registry: string, realm: URL): boolean {
  const host = registry.toLowerCase();
  const realmHost = realm.host.toLowerCase();
  if (realmHost === host) return true;
  if (KNOWN_TOKEN_HOSTS.get(host)?.includes(realmHost)) return true;
  if (realm.protocol !== 'https:' || realm.port !== '') return false;
  const name = hostName(host);
  const parent = realm.hostname.toLowerCase();
  if (isIP(name) !== 0 || isIP(parent) !== 0 || !parent.includes('.')) return false;
  return name.endsWith(`.${parent}`);
}

/** `host[:port]` or `[v6]:port` → the host name alone. */
function hostName(registry: string): string {
  if (registry.startsWith('[')) return registry.slice(1, registry.indexOf(']'));
  const colon = registry.lastIndexOf(':');
  return colon >= 0 ? registry.slice(0, colon) : registry;
}
