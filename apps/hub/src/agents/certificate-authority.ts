import { type CryptoKey, ECDSA_P256, newEcKeyPair, privateKeyPem, webCrypto, x509 } from '@flotilla/agent-protocol';
import { createPrivateKey, randomBytes, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';

/** A CSR the hub will not sign: the agent gets this message, and nothing changes on the hub. */
export class BadCertificateRequest extends Error {
  constructor(message: string) {
    super(`bad certificate request: ${message}`);
    this.name = 'BadCertificateRequest';
  }
}

/** A CA certificate or key that cannot serve as the agents' CA. */
export class BadAgentCa extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(`agent CA: ${message}`, options);
    this.name = 'BadAgentCa';
  }
}

/** A signed certificate and when it ends. */
export interface IssuedCertificate {
  pem: string;
  notAfter: Date;
}

const MAX_CSR_PEM = 8 * 1024;
// a little room for clocks that lag the hub's
const BACKDATE_MS = 60_000;
const CA_VALIDITY_MS = 10 * 365 * 24 * 3600_000;

/**
 * The agents' certificate authority: ECDSA P-256, self-signed, long-lived.
 * It signs each agent's client certificate (naming its cluster, taking only
 * the public key from the agent's CSR) and each hub replica's serving
 * certificate. Plain logic: where the CA is kept is the AgentCa service's.
 */
export class CertificateAuthority {
  private readonly issuer: string;
  // extensions every agent certificate shares, built once: the library's ASN.1 work, not the signature, is what issuing costs
  private readonly agentExtensions = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth], false),
  ];
  private authorityKeyId: Promise<x509.Extension> | undefined;

  private constructor(
    readonly certPem: string,
    readonly keyPem: string,
    private readonly cert: x509.X509Certificate,
    private readonly signingKey: CryptoKey,
  ) {
    this.issuer = cert.subject;
  }

  static async create(commonName = 'Flotilla agent CA'): Promise<CertificateAuthority> {
    const keys = await newEcKeyPair();
    const now = Date.now();
    const cert = await x509.X509CertificateGenerator.createSelfSigned(
      {
        serialNumber: serial(),
        name: [{ CN: [commonName] }],
        keys,
        signingAlgorithm: ECDSA_P256,
        notBefore: new Date(now - BACKDATE_MS),
        notAfter: new Date(now + CA_VALIDITY_MS),
        extensions: [
          new x509.BasicConstraintsExtension(true, 0, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
          await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, webCrypto),
        ],
      },
      webCrypto,
    );
    return new CertificateAuthority(cert.toString('pem'), await privateKeyPem(keys.privateKey), cert, keys.privateKey);
  }

  /** A CA from PEM (the database's, or the operator's): checked to be a CA whose key is `keyPem`. */
  static async load(certPem: string, keyPem: string): Promise<CertificateAuthority> {
    let node: X509Certificate;
    try {
      node = new X509Certificate(certPem);
    } catch (err) {
      throw new BadAgentCa('the certificate is not a PEM X.509 certificate', { cause: err });
    }
    if (!node.ca) throw new BadAgentCa(`"${node.subject}" is not a CA certificate (basicConstraints CA:TRUE)`);
    if (Date.parse(node.validTo) <= Date.now()) throw new BadAgentCa(`"${node.subject}" expired on ${node.validTo}`);
    let key;
    try {
      key = createPrivateKey(keyPem);
    } catch (err) {
      throw new BadAgentCa('the key is not a PEM private key', { cause: err });
    }
    if (!node.checkPrivateKey(key)) throw new BadAgentCa(`the key is not the key of "${node.subject}"`);
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') throw new BadAgentCa('the key must be ECDSA P-256');
    const pkcs8 = key.export({ type: 'pkcs8', format: 'der' });
    const signingKey = await webCrypto.subtle.importKey('pkcs8', pkcs8, ECDSA_P256, false, ['sign']);
    return new CertificateAuthority(certPem, keyPem, new x509.X509Certificate(certPem), signingKey);
  }

  /**
   * The client certificate of the agent of `cluster`, for the key of `csrPem`
   * (whose signature must prove the agent holds it). Only the public key is
   * taken from the CSR; names come from the hub.
   */
  async signAgent(csrPem: string, cluster: { id: string; name: string }, ttlMs: number): Promise<IssuedCertificate> {
    const publicKey = await csrPublicKey(csrPem);
    return this.issue(publicKey, [{ CN: [cluster.name] }, { O: ['flotilla-agent'] }], ttlMs, [
      ...this.agentExtensions,
      new x509.SubjectAlternativeNameExtension([{ type: 'url', value: `urn:flotilla:cluster:${cluster.id}` }], false),
    ]);
  }

  /** A hub replica's serving certificate for `names` (DNS names and IP addresses), with a key of its own. */
  async issueServing(names: readonly string[], ttlMs: number): Promise<IssuedCertificate & { keyPem: string }> {
    const keys = await newEcKeyPair();
    const sans = [...new Set(names)].map((n) => (isIP(n) ? { type: 'ip' as const, value: n } : { type: 'dns' as const, value: n }));
    const issued = await this.issue(keys.publicKey, [{ CN: [names[0] ?? 'flotilla-hub'] }], ttlMs, [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth], false),
      new x509.SubjectAlternativeNameExtension(sans, false),
    ]);
    return { ...issued, keyPem: await privateKeyPem(keys.privateKey) };
  }

  private async issue(publicKey: CryptoKey | x509.PublicKey, subject: x509.JsonName, ttlMs: number, extensions: x509.Extension[]): Promise<IssuedCertificate> {
    const now = Date.now();
    const notAfter = new Date(now + ttlMs);
    this.authorityKeyId ??= x509.AuthorityKeyIdentifierExtension.create(this.cert, false, webCrypto);
    const cert = await x509.X509CertificateGenerator.create(
      {
        serialNumber: serial(),
        subject,
        issuer: this.issuer,
        notBefore: new Date(now - Math.min(BACKDATE_MS, ttlMs / 10)),
        notAfter,
        publicKey,
        signingKey: this.signingKey,
        signingAlgorithm: ECDSA_P256,
        extensions: [...extensions, await this.authorityKeyId],
      },
      webCrypto,
    );
    return { pem: cert.toString('pem'), notAfter };
  }
}

/** The public key of a CSR, once its signature proves the sender holds the private key. */
async function csrPublicKey(csrPem: string): Promise<x509.PublicKey> {
  if (typeof csrPem !== 'string' || csrPem.length === 0) throw new BadCertificateRequest('none given: the agent must send a PEM CSR of an ECDSA P-256 key (upgrade the agent)');
  if (csrPem.length > MAX_CSR_PEM) throw new BadCertificateRequest(`larger than ${MAX_CSR_PEM} bytes`);
  let csr: x509.Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(csrPem);
  } catch {
    throw new BadCertificateRequest('not a PEM PKCS#10 request');
  }
  const alg = csr.publicKey.algorithm as { name: string; namedCurve?: string };
  if (alg.name !== 'ECDSA' || alg.namedCurve !== 'P-256') throw new BadCertificateRequest('the key must be ECDSA P-256');
  const valid = await csr.verify(webCrypto).catch(() => false);
  if (!valid) throw new BadCertificateRequest('its signature does not verify with its key');
  return csr.publicKey;
}

/** 16 random bytes, positive. */
function serial(): string {
  const b = randomBytes(16);
  b[0] &= 0x7f;
  return b.toString('hex');
}
