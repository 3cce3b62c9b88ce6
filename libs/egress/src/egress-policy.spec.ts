import { EgressPolicyConfigError } from './errors';
import { EgressPolicy, isLoopbackHost } from './egress-policy';
import { parseEgressEntry } from './egress-entry';

const policy = (o: Partial<{ allow: string[]; deny: string[]; allowLoopback: boolean }> = {}) =>
  new EgressPolicy({ allow: o.allow ?? [], deny: o.deny ?? [], allowLoopback: o.allowLoopback ?? false });

describe('EgressPolicy', () => {
  it('refuses metadata, link-local and loopback by default, allows private and public ranges', () => {
    const p = policy();
    for (const a of ['169.254.169.254', '::ffff:169.254.169.254', 'fd00:ec2::254', '100.100.100.200', '169.254.1.1', 'fe80::1', '127.0.0.1', '127.5.6.7', '::1', '0.0.0.0', '224.0.0.1']) {
      expect([a, p.checkAddress(a).allowed]).toEqual([a, false]);
    }
    for (const a of ['10.0.0.1', '172.16.3.4', '192.168.1.1', '8.8.8.8', '2001:4860::8888', 'fd12::1']) {
      expect([a, p.checkAddress(a).allowed]).toEqual([a, true]);
    }
  });

  it('says why an address is refused', () => {
    expect(policy().checkAddress('169.254.169.254')).toEqual({ allowed: false, reason: '169.254.169.254 is a cloud metadata address' });
    expect(policy().checkAddress('127.0.0.1')).toEqual({ allowed: false, reason: '127.0.0.1 is loopback, which the egress policy does not allow' });
  });

  it('allows loopback when asked, by the switch or by an allow entry', () => {
    expect(policy({ allowLoopback: true }).checkAddress('127.0.0.1').allowed).toBe(true);
    expect(policy({ allow: ['127.0.0.0/8'] }).checkAddress('127.0.0.1').allowed).toBe(true);
    expect(policy({ allow: ['localhost'] }).checkAddress('127.0.0.1', 'localhost').allowed).toBe(true);
    expect(policy({ allow: ['localhost'] }).checkAddress('127.0.0.1').allowed).toBe(false);
  });

  it('lets the deny list win over the allow list and the loopback switch', () => {
    const p = policy({ allow: ['10.0.0.0/8', '*.corp.example'], deny: ['10.1.0.0/16', 'secret.corp.example'], allowLoopback: true });
    expect(p.checkAddress('10.2.0.1').allowed).toBe(true);
    expect(p.checkAddress('10.1.0.1').allowed).toBe(false);
    expect(p.checkHost('secret.corp.example').allowed).toBe(false);
    expect(p.checkAddress('10.2.0.1', 'secret.corp.example').allowed).toBe(false);
    expect(policy({ allow: ['127.0.0.1'], deny: ['127.0.0.0/8'], allowLoopback: true }).checkAddress('127.0.0.1').allowed).toBe(false);
    expect(policy({ deny: ['10.0.0.0/8'] }).checkAddress('10.0.0.1').allowed).toBe(false);
  });

  it('lifts the metadata refusal only by address, never by a name', () => {
    expect(policy({ allow: ['169.254.169.254'] }).checkAddress('169.254.169.254').allowed).toBe(true);
    expect(policy({ allow: ['*.example.com'] }).checkAddress('169.254.169.254', 'evil.example.com').allowed).toBe(false);
  });

  it('checks names before resolution: metadata names, deny-listed names, IP literals', () => {
    const p = policy({ deny: ['*.internal.example'] });
    expect(p.checkHost('metadata.google.internal').allowed).toBe(false);
    expect(p.checkHost('METADATA.google.internal.').allowed).toBe(false);
    expect(p.checkHost('a.internal.example').allowed).toBe(false);
    expect(p.checkHost('internal.example').allowed).toBe(true);
    // a name is judged by what it resolves to, at connect time
    expect(p.checkHost('localhost').allowed).toBe(true);
    expect(p.checkHost('[::1]').allowed).toBe(false);
    expect(p.checkHost('169.254.169.254').allowed).toBe(false);
    expect(p.checkHost('kubernetes.default.svc').allowed).toBe(true);
  });

  it('refuses special-purpose ranges unless allowed', () => {
    expect(policy().checkAddress('192.0.2.1').allowed).toBe(false);
    expect(policy({ allow: ['192.0.2.0/24'] }).checkAddress('192.0.2.1').allowed).toBe(true);
  });

  it('allowAll allows every address', () => {
    const p = EgressPolicy.allowAll();
    for (const a of ['127.0.0.1', '169.254.169.254', '::1', '10.0.0.1']) expect(p.checkAddress(a).allowed).toBe(true);
  });

  it('knows loopback hosts', () => {
    expect(['127.0.0.1', '::1', '[::1]', 'localhost', 'a.localhost'].map(isLoopbackHost)).toEqual([true, true, true, true, true]);
    expect(['10.0.0.1', 'example.com', 'localhost.example.com'].map(isLoopbackHost)).toEqual([false, false, false]);
  });
});

describe('parseEgressEntry', () => {
  it('parses hosts, patterns, addresses and CIDRs', () => {
    expect(parseEgressEntry(' Registry.Example.com. ')).toEqual({ kind: 'host', host: 'registry.example.com' });
    expect(parseEgressEntry('*.example.com')).toEqual({ kind: 'suffix', suffix: 'example.com' });
    expect(parseEgressEntry('[::1]')).toEqual({ kind: 'address', address: '::1', family: 'ipv6' });
    expect(parseEgressEntry('10.0.0.0/8')).toEqual({ kind: 'cidr', address: '10.0.0.0', prefix: 8, family: 'ipv4' });
  });

  it('refuses what is none of them, naming the entry', () => {
    for (const bad of ['10.0.0.0/33', '10.0.0.0/', 'x/8', '*.', 'a b', 'http://x', '::1/129', '10.0.0.0/08']) {
      expect(() => parseEgressEntry(bad)).toThrow(EgressPolicyConfigError);
    }
    expect(() => parseEgressEntry('10.0.0.0/33')).toThrow('egress policy entry "10.0.0.0/33": the prefix length must be an integer from 0 to 32');
  });
});
