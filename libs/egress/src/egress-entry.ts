// One allow/deny entry parsed: an address, a CIDR, a host name or a `*.suffix` host pattern.
// Plain parsing, no regular expressions: entries come from operators, hosts from API users.
import { isIP } from 'node:net';
import { EgressPolicyConfigError } from './errors';

export type EgressEntry =
  | { kind: 'address'; address: string; family: 'ipv4' | 'ipv6' }
  | { kind: 'cidr'; address: string; prefix: number; family: 'ipv4' | 'ipv6' }
  | { kind: 'host'; host: string }
  | { kind: 'suffix'; suffix: string };

/** `[::1]` → `::1`; lower case; no trailing dot. */
export function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

export function familyOf(address: string): 'ipv4' | 'ipv6' | undefined {
  const v = isIP(address);
  return v === 4 ? 'ipv4' : v === 6 ? 'ipv6' : undefined;
}

/** Letters, digits and hyphens in dot-separated, non-empty labels. */
export function isHostName(host: string): boolean {
  if (host.length === 0 || host.length > 253) return false;
  for (const label of host.split('.')) {
    if (label.length === 0 || label.length > 63) return false;
    for (const ch of label) {
      const ok = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch === '-' || ch === '_';
      if (!ok) return false;
    }
  }
  return true;
}

export function parseEgressEntry(raw: string): EgressEntry {
  const entry = normalizeHost(raw);
  if (!entry) throw new EgressPolicyConfigError(raw, 'is empty');
  if (entry.includes('://')) throw new EgressPolicyConfigError(raw, 'expected a host name, not a URL (drop the scheme and path)');
  const slash = entry.indexOf('/');
  if (slash >= 0) {
    const address = entry.slice(0, slash);
    const bits = entry.slice(slash + 1);
    const family = familyOf(address);
    if (!family) throw new EgressPolicyConfigError(raw, `"${address}" before the "/" is not an IP address`);
    const max = family === 'ipv4' ? 32 : 128;
    const prefix = Number(bits);
    if (bits === '' || !Number.isInteger(prefix) || prefix < 0 || prefix > max || String(prefix) !== bits) {
      throw new EgressPolicyConfigError(raw, `the prefix length must be an integer from 0 to ${max}`);
    }
    return { kind: 'cidr', address, prefix, family };
  }
  const family = familyOf(entry);
  if (family) return { kind: 'address', address: entry, family };
  if (entry.startsWith('*.')) {
    const suffix = entry.slice(2);
    if (!isHostName(suffix)) throw new EgressPolicyConfigError(raw, 'expected "*." followed by a host name, e.g. *.example.com');
    return { kind: 'suffix', suffix };
  }
  if (!isHostName(entry)) throw new EgressPolicyConfigError(raw, 'expected a host name, a *.suffix pattern, an IP address or a CIDR');
  return { kind: 'host', host: entry };
}
