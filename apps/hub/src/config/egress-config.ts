import { defaultEgressPolicyOptions, EgressPolicyConfigError, type EgressPolicyOptions, parseEgressEntry } from '@flotilla/egress';

/**
 * Where the hub may connect (API servers, registries, token realms, CDEvents sinks):
 * FLOTILLA_EGRESS_ALLOW and FLOTILLA_EGRESS_DENY (comma-separated hosts, `*.suffix`
 * patterns, IP addresses and CIDRs; deny wins) and FLOTILLA_EGRESS_ALLOW_LOOPBACK (on/off,
 * default off). Metadata and link-local addresses are refused unless an address or CIDR
 * of the allow list names them; private ranges are allowed unless denied.
 */
export type EgressConfig = EgressPolicyOptions;

export function defaultEgressConfig(): EgressConfig {
  return defaultEgressPolicyOptions();
}

/** Reads the FLOTILLA_EGRESS_* variables, adding every problem to `problems`. */
export function parseEgressConfig(value: (name: string) => string | undefined, problems: string[]): EgressConfig {
  const config = defaultEgressConfig();
  for (const [name, field] of [['FLOTILLA_EGRESS_ALLOW', 'allow'], ['FLOTILLA_EGRESS_DENY', 'deny']] as const) {
    const raw = value(name);
    if (raw === undefined) continue;
    for (const entry of raw.split(',').map((e) => e.trim()).filter((e) => e !== '')) {
      try {
        parseEgressEntry(entry);
        config[field].push(entry);
      } catch (err) {
        if (!(err instanceof EgressPolicyConfigError)) throw err;
        problems.push(`${name}: ${err.message}`);
      }
    }
  }
  const loopback = value('FLOTILLA_EGRESS_ALLOW_LOOPBACK');
  if (loopback !== undefined) {
    if (['on', 'true', '1'].includes(loopback)) config.allowLoopback = true;
    else if (['off', 'false', '0'].includes(loopback)) config.allowLoopback = false;
    else problems.push(`FLOTILLA_EGRESS_ALLOW_LOOPBACK=${JSON.stringify(loopback)}: expected on or off`);
  }
  return config;
}
