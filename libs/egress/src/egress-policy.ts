// Which hosts and addresses the process may connect to. Precedence, first match wins:
// 1. the deny list (names and addresses); 2. the allow list (addresses; names except for
// link-local and metadata addresses); 3. built-in refusals: cloud metadata and link-local
// addresses, loopback unless allowed, other special-purpose ranges; 4. everything else
// (public and private ranges) is allowed.
import { BlockList } from 'node:net';
import { familyOf, normalizeHost, parseEgressEntry, type EgressEntry } from './egress-entry';
import { type EgressPolicyOptions, type EgressVerdict, defaultEgressPolicyOptions } from './types';

/** Instance metadata services: AWS/GCP/Azure/OpenStack, AWS over IPv6, Alibaba. */
const METADATA_ADDRESSES = ['169.254.169.254', 'fd00:ec2::254', '100.100.100.200'];
/** Names that resolve to a metadata service inside clouds. */
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata.azure.internal', 'instance-data', 'instance-data.ec2.internal']);

const LINK_LOCAL: Array<[string, number, 'ipv4' | 'ipv6']> = [
  ['169.254.0.0', 16, 'ipv4'],
  ['fe80::', 10, 'ipv6'],
];
/** 0.0.0.0 reaches the local machine on Linux, so it counts as loopback. */
const LOOPBACK: Array<[string, number, 'ipv4' | 'ipv6']> = [
  ['127.0.0.0', 8, 'ipv4'],
  ['0.0.0.0', 32, 'ipv4'],
  ['::1', 128, 'ipv6'],
  ['::', 128, 'ipv6'],
];
/** Special-purpose ranges (RFC 6890) no cluster, registry or sink should be on. */
const SPECIAL: Array<[string, number, 'ipv4' | 'ipv6']> = [
  ['0.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.0.2.0', 24, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['198.51.100.0', 24, 'ipv4'],
  ['203.0.113.0', 24, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'],
  ['240.0.0.0', 4, 'ipv4'],
  ['100::', 64, 'ipv6'],
  ['2001:db8::', 32, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
];

function blockList(ranges: Array<[string, number, 'ipv4' | 'ipv6']>): BlockList {
  const list = new BlockList();
  for (const [address, prefix, family] of ranges) list.addSubnet(address, prefix, family);
  return list;
}

/** Entries of one list, split into addresses (a BlockList) and names. */
class EntryList {
  readonly addresses = new BlockList();
  private readonly hosts = new Set<string>();
  private readonly suffixes: string[] = [];

  constructor(entries: readonly EgressEntry[]) {
    for (const e of entries) {
      if (e.kind === 'address') this.addresses.addAddress(e.address, e.family);
      else if (e.kind === 'cidr') this.addresses.addSubnet(e.address, e.prefix, e.family);
      else if (e.kind === 'host') this.hosts.add(e.host);
      else this.suffixes.push(e.suffix);
    }
  }

  hasName(host: string): boolean {
    return this.hosts.has(host) || this.suffixes.some((s) => host.endsWith(`.${s}`));
  }

  hasAddress(address: string): boolean {
    const family = familyOf(address);
    return family !== undefined && this.addresses.check(address, family);
  }
}

export class EgressPolicy {
  private readonly allow: EntryList;
  private readonly deny: EntryList;
  private readonly metadata = new BlockList();
  private readonly linkLocal = blockList(LINK_LOCAL);
  private readonly loopback = blockList(LOOPBACK);
  private readonly special = blockList(SPECIAL);

  /** Throws EgressPolicyConfigError naming the first entry that does not parse. */
  constructor(readonly options: EgressPolicyOptions = defaultEgressPolicyOptions()) {
    this.allow = new EntryList(options.allow.map(parseEgressEntry));
    this.deny = new EntryList(options.deny.map(parseEgressEntry));
    for (const a of METADATA_ADDRESSES) this.metadata.addAddress(a, familyOf(a)!);
  }

  /** A policy that allows everything (clients built outside a process that sets one). */
  static allowAll(): EgressPolicy {
    return new EgressPolicy({ allow: ['0.0.0.0/0', '::/0'], deny: [], allowLoopback: true });
  }

  /**
   * The check before resolution, on the host name of a URL: deny-listed names and
   * metadata names are refused here; an IP literal gets the whole address check.
   * A name that passes is checked again on each address it resolves to.
   */
  checkHost(hostname: string): EgressVerdict {
    const host = normalizeHost(hostname);
    if (familyOf(host)) return this.checkAddress(host);
    if (this.deny.hasName(host)) return refused(`${host} is on the egress deny list`);
    if (METADATA_NAMES.has(host)) return refused(`${host} is a cloud metadata service`);
    // any other name (localhost included) is judged by the addresses it resolves to
    return { allowed: true };
  }

  /** The check of the address actually connected to; `hostname` is the name it was resolved from. */
  checkAddress(address: string, hostname?: string): EgressVerdict {
    const ip = normalizeHost(address);
    const family = familyOf(ip);
    if (!family) return refused(`${address} is not an IP address`);
    const host = hostname === undefined ? undefined : normalizeHost(hostname);
    const named = host !== undefined && !familyOf(host);
    if (this.deny.hasAddress(ip) || (named && this.deny.hasName(host))) return refused(`${ip} is on the egress deny list`);
    if (this.allow.hasAddress(ip)) return { allowed: true };
    if (this.metadata.check(ip, family)) return refused(`${ip} is a cloud metadata address`);
    if (this.linkLocal.check(ip, family)) return refused(`${ip} is a link-local address`);
    if (named && this.allow.hasName(host)) return { allowed: true };
    if (this.loopback.check(ip, family)) {
      return this.options.allowLoopback ? { allowed: true } : refused(`${ip} is loopback, which the egress policy does not allow`);
    }
    if (this.special.check(ip, family)) return refused(`${ip} is in a special-purpose range (allow it explicitly to reach it)`);
    return { allowed: true };
  }

}

const LOOPBACK_LIST = blockList(LOOPBACK);

/** True for loopback addresses and `localhost` names: where plain HTTP with credentials may go. */
export function isLoopbackHost(hostOrAddress: string): boolean {
  const host = normalizeHost(hostOrAddress);
  const family = familyOf(host);
  if (family) return LOOPBACK_LIST.check(host, family);
  return host === 'localhost' || host.endsWith('.localhost');
}

function refused(reason: string): EgressVerdict {
  return { allowed: false, reason };
}
