import { DNS_LABEL, labelKeyProblem, labelValueProblem } from './validators';

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
