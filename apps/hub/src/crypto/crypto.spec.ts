import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CryptoRepository, DecryptionError } from './crypto.repository';
import { KeyringError, loadKeyring, parseKeyring } from './keyring';

const k = () => randomBytes(32).toString('base64');

describe('keyring', () => {
  it('takes the first key as current and keeps the others for reading', () => {
    const ring = parseKeyring(`# comment\nnew:${k()}\nold ${k()}\n`, 'test');
    expect(ring.current).toBe('new');
    expect([...ring.keys.keys()]).toEqual(['new', 'old']);
  });

  it('accepts comma-separated keys', () => {
    expect(parseKeyring(`a:${k()},b:${k()}`, 'env').keys.size).toBe(2);
  });

  it.each([
    ['', /no key given/],
    ['a:c2hvcnQ=', /key "a": expected 32 bytes/],
    [`a:${'A'.repeat(43)}=,a:${'A'.repeat(43)}=`, /appears twice/],
    ['justonefield', /entry 1: expected/],
  ])('rejects %j', (text, message) => {
    expect(() => parseKeyring(text, 'FLOTILLA_ENCRYPTION_KEYS')).toThrow(KeyringError);
    expect(() => parseKeyring(text, 'FLOTILLA_ENCRYPTION_KEYS')).toThrow(message);
  });

  it('generates a private key file once when none is configured', () => {
    const dir = mkdtempSync(join(tmpdir(), 'keyring-'));
    try {
      const file = join(dir, 'sub', 'encryption-keys');
      const first = loadKeyring({ generatedKeyFile: file });
      expect(existsSync(file)).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const again = loadKeyring({ generatedKeyFile: file });
      expect(again.keys.get(again.current)).toEqual(first.keys.get(first.current));
      expect(readFileSync(file, 'utf8')).toContain(`${first.current}:`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('CryptoRepository', () => {
  it('fingerprints with a key: stable under one key, unguessable without it', () => {
    const a = new CryptoRepository(parseKeyring(`a:${k()}`, 't'));
    const b = new CryptoRepository(parseKeyring(`b:${k()}`, 't'));
    const unkeyed = createHash('sha256').update('password').digest('hex').slice(0, 16);
    expect(a.fingerprint('password')).toMatch(/^hmac:[0-9a-f]{16}$/);
    expect(a.fingerprint('password')).toBe(a.fingerprint('password'));
    expect(a.fingerprint('password')).not.toBe(a.fingerprint('password2'));
    expect(a.fingerprint('password')).not.toBe(b.fingerprint('password'));
    expect(a.fingerprint('password')).not.toContain(unkeyed);
  });

  it('round-trips through AES-256-GCM and never stores the plaintext', () => {
    const c = new CryptoRepository(parseKeyring(`a:${k()}`, 't'));
    const sealed = c.seal('s3cret-token', 'token');
    expect(sealed.keyId).toBe('a');
    expect(Buffer.from(sealed.envelope, 'base64').toString('latin1')).not.toContain('s3cret');
    expect(c.open(sealed, 'token')).toBe('s3cret-token');
  });

  it('uses a fresh nonce for every seal', () => {
    const c = new CryptoRepository(parseKeyring(`a:${k()}`, 't'));
    expect(c.seal('x', 'token').envelope).not.toEqual(c.seal('x', 'token').envelope);
  });

  it('refuses a different associated data, a tampered envelope and an unknown key', () => {
    const c = new CryptoRepository(parseKeyring(`a:${k()}`, 't'));
    const sealed = c.seal('secret', 'token');
    expect(() => c.open(sealed, 'kubeconfig')).toThrow(DecryptionError);
    const raw = Buffer.from(sealed.envelope, 'base64');
    raw[raw.length - 1] ^= 1;
    expect(() => c.open({ keyId: 'a', envelope: raw.toString('base64') }, 'token')).toThrow(/failed authentication/);
    expect(() => c.open({ keyId: 'zz', envelope: sealed.envelope }, 'token')).toThrow(/key "zz" is not in the keyring/);
  });

  it('reads data sealed under an old key after rotation', () => {
    const oldKey = k();
    const before = new CryptoRepository(parseKeyring(`old:${oldKey}`, 't'));
    const sealed = before.seal('kept', 'token');
    const after = new CryptoRepository(parseKeyring(`new:${k()},old:${oldKey}`, 't'));
    expect(after.open(sealed, 'token')).toBe('kept');
    expect(after.seal('kept', 'token').keyId).toBe('new');
  });
});
