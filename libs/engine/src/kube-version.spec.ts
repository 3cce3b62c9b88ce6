import { normalizeKubeVersion } from './kube-version';

describe('normalizeKubeVersion', () => {
  it.each([
    ['v1.36.3', '1.36.3'],
    ['1.36.3', '1.36.3'],
    ['v1.30.2+k3s1', '1.30.2+k3s1'],
    ['v1.29.4-eks-036c24b', '1.29.4-eks-036c24b'],
    ['v1.31', '1.31.0'],
  ])('%s → %s, suffixes kept as Timoni keeps them', (input, expected) => {
    expect(normalizeKubeVersion(input)).toBe(expected);
  });

  it('refuses what is not a version', () => {
    expect(() => normalizeKubeVersion('latest')).toThrow("API server version 'latest' is not a semantic version");
  });
});
