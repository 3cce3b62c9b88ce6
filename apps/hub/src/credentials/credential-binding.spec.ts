import { randomBytes } from 'node:crypto';
import { openSinkHeader, resealSinkHeader, sealSinkHeader } from '../cdevents/sink-header';
import { CryptoRepository, DecryptionError } from '../crypto/crypto.repository';
import { parseKeyring } from '../crypto/keyring';
import { clusterServerBinding, credentialAad, legacyCredentialAad, registryHostBinding } from './credential-binding';

const k = () => randomBytes(32).toString('base64');
const ROW = '00000000-0000-4000-8000-000000000001';
const OTHER_ROW = '00000000-0000-4000-8000-000000000002';

describe('credential bindings', () => {
  const oldKey = `old:${k()}`;
  const before = new CryptoRepository(parseKeyring(oldKey, 't'));
  const after = new CryptoRepository(parseKeyring(`new:${k()},${oldKey}`, 't'));

  it('a credential opens only with its row, kind and endpoint', () => {
    const binding = clusterServerBinding('https://10.0.0.1:6443');
    const sealed = before.seal('secret', credentialAad(ROW, 'token', binding));
    expect(before.open(sealed, credentialAad(ROW, 'token', binding))).toBe('secret');
    for (const aad of [
      credentialAad(OTHER_ROW, 'token', binding),
      credentialAad(ROW, 'kubeconfig', binding),
      credentialAad(ROW, 'token', clusterServerBinding('https://10.0.0.2:6443')),
      legacyCredentialAad('token'),
    ]) {
      expect(() => before.open(sealed, aad)).toThrow(DecryptionError);
    }
  });

  it('parts of the associated data cannot run into each other', () => {
    expect(credentialAad('a', 'b c', 'd')).not.toBe(credentialAad('a b', 'c', 'd'));
  });

  it('a registry binding is the source host, normalised as the registry client does', () => {
    expect(registryHostBinding('oci://GHCR.io/acme/app')).toBe(registryHostBinding('oci://ghcr.io/other/repo'));
    expect(registryHostBinding('oci://docker.io/acme/app')).toBe(registryHostBinding('oci://index.docker.io/acme/app'));
    expect(registryHostBinding('oci://127.0.0.1:5000/a')).not.toBe(registryHostBinding('oci://127.0.0.1:5001/a'));
  });

  it('a sink header opens only for its Project and URL, also after rotation', () => {
    const to = { projectId: ROW, sinkUrl: 'https://sink.example/events' };
    const sealed = sealSinkHeader(before, { name: 'Authorization', value: 'Bearer s' }, to);
    expect(openSinkHeader(before, sealed, to)).toBe('Bearer s');
    expect(() => openSinkHeader(before, sealed, { ...to, projectId: OTHER_ROW })).toThrow(DecryptionError);
    expect(() => openSinkHeader(before, sealed, { ...to, sinkUrl: 'https://attacker.example/' })).toThrow(DecryptionError);
    expect(() => openSinkHeader(before, { ...sealed, name: 'X-Other' }, to)).toThrow(DecryptionError);
    const rotated = resealSinkHeader(after, sealed, to);
    expect(rotated.keyId).toBe('new');
    expect(openSinkHeader(after, rotated, to)).toBe('Bearer s');
    expect(() => openSinkHeader(after, rotated, { ...to, sinkUrl: 'https://attacker.example/' })).toThrow(DecryptionError);
  });
});
