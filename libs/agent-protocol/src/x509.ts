// @peculiar/x509 builds certificates and CSRs on WebCrypto: Node itself
// parses and verifies X.509 (node:crypto X509Certificate) but cannot issue
// anything, and node-forge has no ECDSA certificates. The library resolves
// its dependency container through `Reflect.getMetadata`, so the polyfill is
// loaded first (NestJS loads the same one in the hub).
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';

export { x509 };

/** Node's WebCrypto, passed to every @peculiar/x509 call (no global provider is set). */
export const webCrypto = webcrypto;

export type CryptoKey = webcrypto.CryptoKey;
export type CryptoKeyPair = webcrypto.CryptoKeyPair;

/** ECDSA P-256 with SHA-256: every key and signature of the agent PKI. */
export const ECDSA_P256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export async function newEcKeyPair(): Promise<CryptoKeyPair> {
  return (await webCrypto.subtle.generateKey(ECDSA_P256, true, ['sign', 'verify'])) as CryptoKeyPair;
}

export async function privateKeyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webCrypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END PRIVATE KEY-----\n`;
}
