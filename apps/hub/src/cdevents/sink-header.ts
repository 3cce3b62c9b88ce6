import type { CryptoRepository } from '../crypto/crypto.repository';
import type { SealedSinkHeader } from '../database/entities';

/** The associated data sink headers were sealed with before they were bound (re-sealed at start). */
export const LEGACY_SINK_HEADER_AAD = 'cdevents-sink-header';

/** Where a sink header may go: its Project's sink URL. */
export interface SinkBinding {
  projectId: string;
  sinkUrl: string;
}

/** The associated data of a sink header: it opens only for its Project, its sink URL and its header name. */
function sinkHeaderAad(name: string, to: SinkBinding): string {
  return JSON.stringify(['flotilla/sink-header/v2', to.projectId, to.sinkUrl, name]);
}

/** Seals a sink header's value for the sink it was given with; only the delivery opens it, into the request to that sink. */
export function sealSinkHeader(crypto: CryptoRepository, header: { name: string; value: string }, to: SinkBinding): SealedSinkHeader {
  return { name: header.name, bound: true, ...crypto.seal(header.value, sinkHeaderAad(header.name, to)) };
}

/** The header's value, for a request to `to.sinkUrl`; DecryptionError when it was sealed for another Project or URL. */
export function openSinkHeader(crypto: CryptoRepository, sealed: SealedSinkHeader, to: SinkBinding): string {
  return crypto.open({ keyId: sealed.keyId, envelope: sealed.envelope }, sealed.bound ? sinkHeaderAad(sealed.name, to) : LEGACY_SINK_HEADER_AAD);
}

/** The same header sealed with the current key and bound to `to` (key rotation; headers sealed before bindings). */
export function resealSinkHeader(crypto: CryptoRepository, sealed: SealedSinkHeader, to: SinkBinding): SealedSinkHeader {
  return sealSinkHeader(crypto, { name: sealed.name, value: openSinkHeader(crypto, sealed, to) }, to);
}
