import { isAuthentic, signBody } from './signature';

describe('receiver authentication', () => {
  const body = Buffer.from('{"context":{}}');
  it('accepts the HMAC of the exact body under any configured secret, or a secret as bearer token', () => {
    expect(signBody('s3cret', body)).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(isAuthentic(['old', 's3cret'], body, signBody('s3cret', body), undefined)).toBe(true);
    expect(isAuthentic(['s3cret'], body, undefined, 'Bearer s3cret')).toBe(true);
  });
  it('refuses a signature of another body or secret, a wrong token, and nothing at all', () => {
    expect(isAuthentic(['s3cret'], Buffer.from('{"context":{} }'), signBody('s3cret', body), undefined)).toBe(false);
    expect(isAuthentic(['s3cret'], body, signBody('other', body), undefined)).toBe(false);
    expect(isAuthentic(['s3cret'], body, 'sha256=00', undefined)).toBe(false);
    expect(isAuthentic(['s3cret'], body, undefined, 'Bearer s3cre')).toBe(false);
    expect(isAuthentic(['s3cret'], body, undefined, 'Basic czNjcmV0')).toBe(false);
    expect(isAuthentic(['s3cret'], body, undefined, undefined)).toBe(false);
  });
});
