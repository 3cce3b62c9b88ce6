import { createHash, createPublicKey, X509Certificate } from 'node:crypto';
import { ECDSA_P256, newEcKeyPair, privateKeyPem, webCrypto, x509 } from './x509';

/** A fresh key of the agent and the request for a certificate of it; the key never leaves the agent. */
export interface AgentKeyRequest {
  keyPem: string;
  csrPem: string;
}

/**
 * A new ECDSA P-256 key and a CSR signed with it (proof that the agent holds
 * the key). The subject is left to the hub: it names the cluster from the
 * bootstrap token or the stream, never from what the agent asks for.
 */
export async function newAgentKeyRequest(): Promise<AgentKeyRequest> {
  const keys = await newEcKeyPair();
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=flotilla-agent', keys, signingAlgorithm: ECDSA_P256 }, webCrypto);
  return { keyPem: await privateKeyPem(keys.privateKey), csrPem: csr.toString('pem') };
}

/** sha256 of the certificate's DER, hex: how the hub knows a certificate (and revokes it). */
export function certificateFingerprint(cert: string | Buffer): string {
  const der = typeof cert === 'string' ? new X509Certificate(cert).raw : cert;
  return createHash('sha256').update(der).digest('hex');
}

/** Whether `certPem` certifies the public half of `keyPem`. */
export function certificateMatchesKey(certPem: string, keyPem: string): boolean {
  const a = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
  const b = createPublicKey(keyPem).export({ type: 'spki', format: 'der' });
  return a.equals(b);
}

/** When a certificate should be renewed: two thirds into its lifetime, so a third is left to get through. */
export function renewalDue(certPem: string): Date {
  const c = new X509Certificate(certPem);
  const from = Date.parse(c.validFrom);
  const to = Date.parse(c.validTo);
  return new Date(from + ((to - from) * 2) / 3);
}
