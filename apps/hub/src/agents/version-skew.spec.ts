import { agentSkew, parseRelease } from './version-skew';

describe('agent version skew', () => {
  it.each([
    ['0.5.0', '0.5.0', 'supported'],
    ['0.5.3', '0.5.9', 'supported'],
    ['0.5.0', '0.4.7', 'supported'],
    ['0.5.0', 'v0.4.0', 'supported'],
    ['0.5.0', '0.3.9', 'too-old'],
    ['1.0.0', '0.9.0', 'too-old'],
    ['1.2.0', '0.2.0', 'too-old'],
    ['0.5.0', '0.6.0', 'too-new'],
    ['0.5.0', '1.5.0', 'too-new'],
    ['1.0.0', '1.0.0', 'supported'],
    ['1.0.0', '1.1.0', 'too-new'],
  ])('hub %s, agent %s: %s', (hub, agent, status) => {
    const skew = agentSkew(hub, agent);
    expect(skew.status).toBe(status);
    expect(skew.supported).toBe(status === 'supported');
  });

  it('names the versions and the supported range, and what to do', () => {
    expect(agentSkew('0.5.0', '0.3.1').message).toBe('agent 0.3.1 is older than this hub (0.5.0) supports (0.4.x and 0.5.x): upgrade it (flotilla cluster upgrade-agent)');
    expect(agentSkew('1.0.2', '1.1.0').message).toContain('upgrade the hub first');
    // minor 0 has no minor before it in the same major
    expect(agentSkew('1.0.0', '0.9.0').message).toContain('(1.0.x)');
    expect(agentSkew('0.5.0', '0.5.1').message).toContain('within');
  });

  it('says unknown, never supported, for a missing version, "unknown", a non-release and a development build', () => {
    for (const v of [null, '', 'unknown', 'latest', '0.5', '0.5.0.1', '05.0.0', '0.5.x', '0.5.0-dev', '0.5.0+abc']) {
      const skew = agentSkew('0.5.0', v);
      expect([v, skew.status, skew.supported]).toEqual([v, 'unknown', false]);
    }
    expect(agentSkew('0.5.0', '0.5.0-rc.1').message).toContain('development build');
    expect(agentSkew('dev', '0.5.0')).toMatchObject({ status: 'unknown', supported: false });
  });

  it('reads releases by parts', () => {
    expect(parseRelease('v1.2.3-rc.1+b')).toEqual({ major: 1, minor: 2, patch: 3, suffix: '-rc.1+b' });
    expect(parseRelease('1.2.3')).toEqual({ major: 1, minor: 2, patch: 3, suffix: '' });
    expect(parseRelease('1.2.-3')).toBeNull();
    expect(parseRelease('9999999999.0.0')).toBeNull();
  });
});
