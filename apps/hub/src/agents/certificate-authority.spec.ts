import { certificateMatchesKey, newAgentKeyRequest, renewalDue } from '@flotilla/agent-protocol';
import { X509Certificate } from 'node:crypto';
import { BadAgentCa, BadCertificateRequest, CertificateAuthority } from './certificate-authority';

describe('the agents\' certificate authority', () => {
  let ca: CertificateAuthority;
  beforeAll(async () => {
    ca = await CertificateAuthority.create();
  });

  it('signs the key of an agent\'s CSR for a client certificate naming the cluster, whatever the CSR asked', async () => {
    const req = await newAgentKeyRequest();
    const issued = await ca.signAgent(req.csrPem, { id: '7d0a1a8e-0000-4000-8000-000000000001', name: 'edge-1' }, 3600_000);
    const cert = new X509Certificate(issued.pem);
    const root = new X509Certificate(ca.certPem);
    expect(cert.checkIssued(root)).toBe(true);
    expect(cert.verify(root.publicKey)).toBe(true);
    expect(cert.subject).toContain('CN=edge-1');
    expect(cert.subjectAltName).toBe('URI:urn:flotilla:cluster:7d0a1a8e-0000-4000-8000-000000000001');
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(cert.ca).toBe(false);
    expect(certificateMatchesKey(issued.pem, req.keyPem)).toBe(true);
    expect(Math.abs(Date.parse(cert.validTo) - issued.notAfter.getTime())).toBeLessThan(1000);
    // renewed two thirds into its life
    const due = renewalDue(issued.pem).getTime();
    expect(due).toBeGreaterThan(Date.now() + 3600_000 / 2);
    expect(due).toBeLessThan(Date.now() + 3600_000);
  });

  it('refuses a CSR that is missing, not a CSR, of another key type or whose signature does not verify', async () => {
    const cluster = { id: 'x', name: 'edge-1' };
    await expect(ca.signAgent('', cluster, 1000)).rejects.toThrow(BadCertificateRequest);
    await expect(ca.signAgent('-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n', cluster, 1000)).rejects.toThrow(/not a PEM PKCS#10 request/);
    await expect(ca.signAgent('x'.repeat(9000), cluster, 1000)).rejects.toThrow(/larger than/);
    // a CSR whose signed bytes were changed after signing
    const { csrPem } = await newAgentKeyRequest();
    const der = Buffer.from(csrPem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    der[der.length - 80] ^= 1;
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    await expect(ca.signAgent(tampered, cluster, 1000)).rejects.toThrow(BadCertificateRequest);
  });

  it('issues a serving certificate for DNS names and IP addresses', async () => {
    const s = await ca.issueServing(['hub.example', 'localhost', '127.0.0.1', '::1'], 3600_000);
    const cert = new X509Certificate(s.pem);
    expect(cert.subjectAltName).toBe('DNS:hub.example, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    expect(cert.checkHost('hub.example')).toBe('hub.example');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(certificateMatchesKey(s.pem, s.keyPem)).toBe(true);
  });

  it('loads a CA from PEM only when it is a CA and the key is its own', async () => {
    const again = await CertificateAuthority.load(ca.certPem, ca.keyPem);
    const req = await newAgentKeyRequest();
    expect(new X509Certificate((await again.signAgent(req.csrPem, { id: 'x', name: 'a' }, 1000)).pem).checkIssued(new X509Certificate(ca.certPem))).toBe(true);
    const other = await CertificateAuthority.create();
    await expect(CertificateAuthority.load(ca.certPem, other.keyPem)).rejects.toThrow(/is not the key of/);
    const leaf = await ca.issueServing(['x'], 1000);
    await expect(CertificateAuthority.load(leaf.pem, leaf.keyPem)).rejects.toThrow(/not a CA certificate/);
    await expect(CertificateAuthority.load('nope', ca.keyPem)).rejects.toThrow(BadAgentCa);
    await expect(CertificateAuthority.load(ca.certPem, 'nope')).rejects.toThrow(/not a PEM private key/);
  });
});
