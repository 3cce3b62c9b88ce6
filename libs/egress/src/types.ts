// Options of an egress policy: which hosts and addresses the process may connect to.

export interface EgressPolicyOptions {
  /**
   * Hosts (`registry.example.com`), host patterns (`*.example.com`: any name under it),
   * IP addresses and CIDRs that may be reached even where the defaults refuse them
   * (loopback, special-purpose ranges; link-local and metadata addresses only by an
   * address or CIDR entry, never by a name).
   */
  allow: string[];
  /** The same forms, refused always: the deny list wins over the allow list and the defaults. */
  deny: string[];
  /** Loopback (127.0.0.0/8, ::1, 0.0.0.0) may be reached: tests and single-machine setups. */
  allowLoopback: boolean;
}

/** Nothing listed, loopback refused: private ranges (where clusters live) and public addresses are allowed. */
export function defaultEgressPolicyOptions(): EgressPolicyOptions {
  return { allow: [], deny: [], allowLoopback: false };
}

/** The outcome of one check: allowed, or refused with a short reason for the user. */
export type EgressVerdict = { allowed: true } | { allowed: false; reason: string };
