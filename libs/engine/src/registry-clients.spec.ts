import { RegistryClients } from './registry-clients';

describe('RegistryClients', () => {
  it('shares a client between equal fingerprints and evicts the least recently used', () => {
    const clients = new RegistryClients(2);
    const a = clients.get({ source: { kind: 'anonymous' }, fingerprint: 'a' });
    expect(clients.get({ source: { kind: 'anonymous' }, fingerprint: 'a' })).toBe(a);
    const b = clients.get({ source: { kind: 'anonymous' }, fingerprint: 'b' });
    clients.get({ source: { kind: 'anonymous' }, fingerprint: 'a' });
    clients.get({ source: { kind: 'anonymous' }, fingerprint: 'c' });
    expect(clients.size).toBe(2);
    expect(clients.get({ source: { kind: 'anonymous' }, fingerprint: 'a' })).toBe(a);
    expect(clients.get({ source: { kind: 'anonymous' }, fingerprint: 'b' })).not.toBe(b);
  });
});
