// Typed errors of libs/egress.

export class EgressError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** An allow or deny entry that is neither a host, a `*.suffix` pattern, an IP address nor a CIDR. */
export class EgressPolicyConfigError extends EgressError {
  constructor(readonly entry: string, reason: string) {
    super(`egress policy entry ${JSON.stringify(entry)}: ${reason}`);
  }
}

/** A connection the egress policy refused, before any byte was sent to the address. */
export class EgressRefusedError extends EgressError {
  /** Node-style code, so callers that describe network errors by code show it too. */
  readonly code = 'EGRESS_REFUSED';

  constructor(
    /** the host name (or IP literal) that was asked for */
    readonly host: string,
    /** the address that would have been connected to, when resolution got that far */
    readonly address: string | undefined,
    readonly reason: string,
  ) {
    super(`connection to ${host}${address && address !== host ? ` (${address})` : ''} refused by the egress policy: ${reason}`);
  }
}
