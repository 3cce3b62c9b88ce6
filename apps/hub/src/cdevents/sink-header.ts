import type { CryptoRepository } from '../crypto/crypto.repository';
import type { SealedSinkHeader } from '../database/entities';

/** The additional authenticated data a sink header is sealed with: it opens for nothing else. */
export const SINK_HEADER_AAD = 'cdevents-sink-header';

/** Seals a sink header's value; only the delivery opens it, into the request. */
export function sealSinkHeader(crypto: CryptoRepository, header: { name: string; value: string }): SealedSinkHeader {
  return { name: header.name, ...crypto.seal(header.value, SINK_HEADER_AAD) };
}

/** The same header sealed with the current key (key rotation). */
export function resealSinkHeader(crypto: CryptoRepository, sealed: SealedSinkHeader): SealedSinkHeader {
  return sealSinkHeader(crypto, { name: sealed.name, value: crypto.open({ keyId: sealed.keyId, envelope: sealed.envelope }, SINK_HEADER_AAD) });
}
