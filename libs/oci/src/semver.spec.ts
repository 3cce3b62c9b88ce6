import { compareSemver, isModuleVersion, isStrictSemver } from './semver';

describe('semver', () => {
  it('accepts strict SemVer only, and module versions without build metadata', () => {
    expect(isStrictSemver('1.2.3-rc.1+b5')).toBe(true);
    expect(isStrictSemver('v1.2.3')).toBe(false);
    expect(isStrictSemver('1.2')).toBe(false);
    expect(isStrictSemver('01.2.3')).toBe(false);
    expect(isModuleVersion('1.2.3-rc.1')).toBe(true);
    expect(isModuleVersion('1.2.3+b5')).toBe(false);
  });
  it('orders by SemVer precedence', () => {
    const sorted = ['1.0.0', '1.0.0-rc.1', '1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta.11', '1.0.0-beta.2', '2.0.0', '1.10.0'].sort(compareSemver);
    expect(sorted).toEqual(['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '1.10.0', '2.0.0']);
  });
});
