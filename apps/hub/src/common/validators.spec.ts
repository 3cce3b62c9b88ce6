import { DNS_LABEL, HTTP_URL, LABEL_KEY, labelKeyProblem, labelValueProblem, PEM_DATA } from './validators';

describe('Kubernetes names and labels', () => {
  it.each(['a', 'prod-eu-1', '0abc', 'a'.repeat(63)])('%s is a DNS label', (s) => expect(DNS_LABEL.test(s)).toBe(true));
  it.each(['', 'A', '-a', 'a-', 'a_b', 'a.b', 'a'.repeat(64)])('%j is not a DNS label', (s) => expect(DNS_LABEL.test(s)).toBe(false));

  it.each(['env', 'app.kubernetes.io/name', 'example.com/a_b.c-d', 'A1'])('%s is a label key', (k) => expect(labelKeyProblem(k)).toBeUndefined());
  it.each(['', 'bad key', '-a', 'Example.com/x', 'a/b/c', `${'a'.repeat(64)}`, 'x/'])('%j is not a label key', (k) => expect(labelKeyProblem(k)).toMatch(/^key /));

  it('checks label values', () => {
    expect(labelValueProblem('k', '')).toBeUndefined();
    expect(labelValueProblem('k', 'v1.2_x')).toBeUndefined();
    expect(labelValueProblem('k', 'has space')).toMatch(/value of "k"/);
    expect(labelValueProblem('k', 'a'.repeat(64))).toMatch(/value of "k"/);
    expect(labelValueProblem('k', 3)).toBe('value of "k" must be a string');
  });
});

// The OpenAPI document publishes these expressions; the API's own checks must agree with them.
describe('expressions the OpenAPI document publishes', () => {
  const keys = ['env', 'app.kubernetes.io/name', 'example.com/a_b.c-d', 'A1', '', 'bad key', '-a', 'Example.com/x', 'a/b/c', 'a'.repeat(64), 'x/', `${'a'.repeat(254)}/x`, `${'a.'.repeat(126)}a/x`];
  it.each(keys)('LABEL_KEY and labelKeyProblem agree on %j', (k) => expect(LABEL_KEY.test(k)).toBe(labelKeyProblem(k) === undefined));

  const urls = [
    ['https://10.0.0.1:6443', true],
    ['http://kube.example.com/api/v1?x=1&y=2', true],
    ['https://[fd00::1]:6443', true],
    ['http://localhost:65535/', true],
    ['http://a.1', false], // a numeric last label is read as IPv4 and fails
    ['http://0x1', false],
    ['http://h:65536', false],
    ['https://user:pw@host', false],
    ['ftp://host', false],
    ['https://host/#frag', false],
    ['https://host name', false],
  ] as const;
  it.each(urls)('HTTP_URL on %s is %s, and every match is a URL without user info', (url, ok) => {
    expect(HTTP_URL.test(url)).toBe(ok);
    if (ok) expect(new URL(url).username).toBe('');
  });

  it('PEM_DATA takes PEM or base64 of PEM, and nothing else', () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    expect(PEM_DATA.test(pem)).toBe(true);
    expect(PEM_DATA.test(`\n  ${pem}`)).toBe(true);
    expect(PEM_DATA.test(Buffer.from(pem).toString('base64'))).toBe(true);
    expect(PEM_DATA.test('not a certificate')).toBe(false);
    expect(PEM_DATA.test(Buffer.from('hello').toString('base64'))).toBe(false);
    expect(PEM_DATA.test(`${pem}\u0000`)).toBe(false);
  });
});
