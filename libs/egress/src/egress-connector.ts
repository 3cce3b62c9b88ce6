// The undici connector that enforces an egress policy on the address actually connected
// to: names are resolved by a lookup that drops refused addresses, so the socket can only
// go where the check looked (no second resolution for DNS rebinding to win), IP literals
// are checked before connecting, and the socket's remote address is checked again before
// the connection is handed out, so nothing is sent to a refused address.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction, Socket } from 'node:net';
import type { buildConnector as BuildConnector } from 'undici';
import { normalizeHost } from './egress-entry';
import { type EgressPolicy, isLoopbackHost } from './egress-policy';
import { EgressRefusedError } from './errors';

export interface EgressConnectorOptions {
  /**
   * Plain `http://` only to loopback: for clients that always send credentials
   * (bearer tokens, client certificates, sink headers), which must not cross a network in clear.
   */
  plainHttpLoopbackOnly: boolean;
  /** TLS and socket options passed on to undici's connector (ca, cert, key, rejectUnauthorized, secureContext, timeout). */
  connect?: BuildConnector.BuildOptions;
}

export function defaultEgressConnectorOptions(): EgressConnectorOptions {
  return { plainHttpLoopbackOnly: false };
}

/** A lookup that only answers addresses the policy allows (EgressRefusedError when none is). */
export function egressLookup(policy: EgressPolicy, resolve: LookupFunction = dnsLookup as LookupFunction): LookupFunction {
  return ((hostname: string, options: { all?: boolean } & Record<string, unknown>, callback: (...args: unknown[]) => void) => {
    resolve(hostname, { ...options, all: true }, (err: NodeJS.ErrnoException | null, addresses: string | LookupAddress[]) => {
      if (err) return callback(err);
      const list = typeof addresses === 'string' ? [{ address: addresses, family: 0 }] : addresses;
      let firstRefusal: string | undefined;
      const allowed = list.filter((a) => {
        const v = policy.checkAddress(a.address, hostname);
        if (!v.allowed) firstRefusal ??= v.reason;
        return v.allowed;
      });
      if (allowed.length === 0) {
        return callback(new EgressRefusedError(hostname, list[0]?.address, firstRefusal ?? 'the name resolved to no address'));
      }
      if (options.all) return callback(null, allowed);
      return callback(null, allowed[0].address, allowed[0].family);
    });
  }) as LookupFunction;
}

/** An undici connector (for `new Agent({ connect })`) that only connects where `policy` allows. */
export function egressConnector(policy: EgressPolicy, options: EgressConnectorOptions = defaultEgressConnectorOptions()): BuildConnector.connector {
  // undici is loaded on first use: a CLI command that never connects should not pay for it
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { buildConnector } = require('undici') as { buildConnector: typeof BuildConnector };
  const base = buildConnector({ ...options.connect, lookup: egressLookup(policy) } as BuildConnector.BuildOptions);
  return (opts, callback) => {
    const host = normalizeHost(opts.hostname);
    const before = policy.checkHost(host);
    if (!before.allowed) return callback(new EgressRefusedError(host, undefined, before.reason), null);
    if (options.plainHttpLoopbackOnly && opts.protocol === 'http:' && !isLoopbackHost(host)) {
      return callback(new EgressRefusedError(host, undefined, 'plain http:// with credentials is only allowed to loopback; use https://'), null);
    }
    base(opts, (err, socket) => {
      if (err || !socket) return callback(err ?? new Error('no socket'), null);
      const address = (socket as Socket).remoteAddress;
      const after = address ? policy.checkAddress(address, host) : { allowed: false as const, reason: 'the socket has no remote address' };
      if (!after.allowed) {
        socket.destroy();
        return callback(new EgressRefusedError(host, address, after.reason), null);
      }
      if (options.plainHttpLoopbackOnly && opts.protocol === 'http:' && !isLoopbackHost(address!)) {
        socket.destroy();
        return callback(new EgressRefusedError(host, address, 'plain http:// with credentials is only allowed to loopback; use https://'), null);
      }
      callback(null, socket);
    });
  };
}
