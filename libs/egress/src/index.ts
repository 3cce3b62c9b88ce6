// Public surface of libs/egress: where the process may connect to, enforced on the connected address.
export * from './types';
export * from './errors';
export { parseEgressEntry, normalizeHost, type EgressEntry } from './egress-entry';
export * from './egress-policy';
export * from './egress-connector';
export * from './egress-fetch';
export * from './remote-text';
export * from './response-read';
