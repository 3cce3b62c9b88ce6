import { type Binding, BindingIndex, identityOf, MAX_GROUPS, OidcClaimsError, principalOf, sameRights } from './oidc-principal';

const claims = { sub: 'u-1', exp: 2_000_000_000, email: 'ann@example.test', preferred_username: 'ann', groups: ['team-a', 'team-b'] };

describe('identityOf', () => {
  it('takes subject, email, groups and expiry; the name is email, else username, else subject', () => {
    expect(identityOf(claims, 'groups')).toEqual({ subject: 'u-1', email: 'ann@example.test', name: 'ann@example.test', groups: ['team-a', 'team-b'], expiresAt: 2_000_000_000_000 });
    expect(identityOf({ ...claims, email: undefined }, 'groups').name).toBe('ann');
    expect(identityOf({ sub: 'u-1', exp: 1 }, 'groups')).toMatchObject({ name: 'u-1', email: null, groups: [] });
  });

  it('reads the configured groups claim, a single string as one group', () => {
    expect(identityOf({ ...claims, roles: 'ops' }, 'roles').groups).toEqual(['ops']);
  });

  it('refuses claims it cannot use', () => {
    expect(() => identityOf({ exp: 1 }, 'groups')).toThrow(OidcClaimsError);
    expect(() => identityOf({ sub: 'x' }, 'groups')).toThrow(/"exp"/);
    expect(() => identityOf({ ...claims, groups: { a: 1 } }, 'groups')).toThrow(/neither a list of strings nor a string/);
    expect(() => identityOf({ ...claims, groups: Array.from({ length: MAX_GROUPS + 1 }, (_, i) => `g${i}`) }, 'groups')).toThrow(/at most 1000/);
  });
});

describe('principalOf', () => {
  const identity = identityOf(claims, 'groups');
  const bind = (bindings: Binding[]) => principalOf(identity, new BindingIndex(bindings).matching(identity));

  it('is undefined when no binding matches', () => {
    expect(bind([{ claim: 'group', value: 'team-c', tenant: null, role: 'admin' }, { claim: 'subject', value: 'u-2', tenant: null, role: 'admin' }])).toBeUndefined();
  });

  it('maps each bound tenant to the highest role there; the role is the highest of those', () => {
    const p = bind([
      { claim: 'group', value: 'team-a', tenant: 'a', role: 'viewer' },
      { claim: 'subject', value: 'u-1', tenant: 'a', role: 'operator' },
      { claim: 'group', value: 'team-b', tenant: 'b', role: 'viewer' },
    ]);
    expect(p).toEqual({ tokenId: 'u-1', name: 'ann@example.test', role: 'operator', tenants: { a: 'operator', b: 'viewer' }, oidc: { subject: 'u-1', email: 'ann@example.test' }, expiresAt: 2_000_000_000_000 });
  });

  it('is global with the highest global role once any global binding matches', () => {
    const p = bind([
      { claim: 'group', value: 'team-a', tenant: 'a', role: 'operator' },
      { claim: 'group', value: 'team-b', tenant: null, role: 'viewer' },
    ]);
    expect(p).toMatchObject({ role: 'viewer' });
    expect(p!.tenants).toBeUndefined();
    expect(bind([{ claim: 'group', value: 'team-b', tenant: null, role: 'viewer' }, { claim: 'subject', value: 'u-1', tenant: null, role: 'admin' }])!.role).toBe('admin');
  });

  it('tells same rights from changed ones', () => {
    const a = bind([{ claim: 'group', value: 'team-a', tenant: 'a', role: 'viewer' }])!;
    expect(sameRights(a, bind([{ claim: 'group', value: 'team-a', tenant: 'a', role: 'viewer' }])!)).toBe(true);
    expect(sameRights(a, bind([{ claim: 'group', value: 'team-a', tenant: 'b', role: 'viewer' }])!)).toBe(false);
    expect(sameRights(a, bind([{ claim: 'group', value: 'team-a', tenant: null, role: 'viewer' }])!)).toBe(false);
  });
});
