import { CertificateAuthority } from '../../../hub/src/agents/certificate-authority';
import { renewalDelay } from './renewal';

describe('renewalDelay', () => {
  it('waits two thirds of the certificate\'s life, at once when that is past, a minute after a failure', async () => {
    const ca = await CertificateAuthority.create();
    // a serving certificate has the same validity fields an agent's has
    const { pem } = await ca.issueServing(['x'], 3 * 3600_000);
    const now = Date.now();
    // backdated by a minute: due two hours in, less two thirds of that minute
    expect(renewalDelay(pem, now, false)).toBeGreaterThan(2 * 3600_000 - 60_000);
    expect(renewalDelay(pem, now, false)).toBeLessThanOrEqual(2 * 3600_000);
    expect(renewalDelay(pem, now + 5 * 3600_000, false)).toBe(0);
    expect(renewalDelay(pem, now, true)).toBe(60_000);
    // never past what a Node timer holds
    const long = await ca.issueServing(['x'], 3 * 365 * 24 * 3600_000);
    expect(renewalDelay(long.pem, now, false)).toBe(2 ** 31 - 1);
  });
});
