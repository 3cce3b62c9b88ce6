// `fetch` whose connections pass the egress policy: for clients written against fetch
// (the OCI registry client, the CDEvents sink post). One pool per EgressFetch.
import type { Agent } from 'undici';
import { egressConnector, type EgressConnectorOptions, defaultEgressConnectorOptions } from './egress-connector';
import type { EgressPolicy } from './egress-policy';

export interface EgressFetch {
  fetch: typeof fetch;
  /** Closes the pool's connections. */
  close(): Promise<void>;
}

export function egressFetch(policy: EgressPolicy, options: EgressConnectorOptions = defaultEgressConnectorOptions()): EgressFetch {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const undici = require('undici') as typeof import('undici');
  const agent: Agent = new undici.Agent({ connect: egressConnector(policy, options) });
  const bound = ((input: Parameters<typeof undici.fetch>[0], init?: Parameters<typeof undici.fetch>[1]) =>
    undici.fetch(input, { ...init, dispatcher: agent })) as unknown as typeof fetch;
  return { fetch: bound, close: () => agent.close() };
}
