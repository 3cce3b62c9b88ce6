import { DigestPinMismatchError, InvalidReferenceError } from './errors';
import { checkModulePin, planModulePull } from './module-reference';

const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;
const URL = 'oci://127.0.0.1:5000/modules/podinfo';
const repo = { registry: '127.0.0.1:5000', repository: 'modules/podinfo' };

describe('planModulePull (Timoni bundle pinning rules)', () => {
  it('defaults the version to latest and pulls that tag', () => {
    expect(planModulePull({ url: URL })).toEqual({ reference: { ...repo, tag: 'latest' }, pin: undefined });
  });
  it('pulls by digest when the version is latest and a digest is set', () => {
    expect(planModulePull({ url: URL, digest: D1 })).toEqual({ reference: { ...repo, digest: D1 } });
    expect(planModulePull({ url: URL, version: 'latest', digest: D1 })).toEqual({ reference: { ...repo, digest: D1 } });
  });
  it('pulls the tag and pins the digest for any other version', () => {
    const plan = planModulePull({ url: URL, version: '6.5.4', digest: D1 });
    expect(plan).toEqual({ reference: { ...repo, tag: '6.5.4' }, pin: D1 });
    expect(() => checkModulePin(plan, D1)).not.toThrow();
    expect(() => checkModulePin(plan, D2)).toThrow(DigestPinMismatchError);
  });
  it('treats a version starting with @ as a digest', () => {
    expect(planModulePull({ url: URL, version: `@${D1}` })).toEqual({ reference: { ...repo, digest: D1 }, pin: undefined });
  });
  it('refuses tags or digests in the URL and malformed versions', () => {
    expect(() => planModulePull({ url: `${URL}:1.0.0` })).toThrow(InvalidReferenceError);
    expect(() => planModulePull({ url: URL, version: '1.0.0+build' })).toThrow(InvalidReferenceError);
    expect(() => planModulePull({ url: URL, version: '@sha256:12' })).toThrow(InvalidReferenceError);
    expect(() => planModulePull({ url: URL, digest: 'sha256:zz' })).toThrow(InvalidReferenceError);
  });
});
