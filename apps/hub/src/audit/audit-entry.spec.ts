import { auditEntryOf, formatObject, isAudited, objectOf } from './audit-entry';

describe('which requests are audited', () => {
  it('records mutating API requests and refusals anywhere, and no successful read', () => {
    expect(isAudited('POST', '/api/v1/projects', 201)).toBe(true);
    expect(isAudited('DELETE', '/api/v1/clusters/a', 404)).toBe(true);
    expect(isAudited('PATCH', '/api', 400)).toBe(true);
    expect(isAudited('GET', '/api/v1/projects', 200)).toBe(false);
    expect(isAudited('GET', '/api/v1/projects', 404)).toBe(false);
    expect(isAudited('GET', '/metrics', 401)).toBe(true);
    expect(isAudited('GET', '/api/v1/tokens', 403)).toBe(true);
    expect(isAudited('GET', '/api/v1/clusters', 429)).toBe(true);
    // a POST outside the API (none exists today) is not a change to audit
    expect(isAudited('POST', '/apix', 404)).toBe(false);
  });
});

describe('the object of a route', () => {
  it('is the first collection in the singular and the route parameters', () => {
    expect(objectOf('/api/v1/projects/:name/suspend', { name: 'web' })).toEqual({ kind: 'project', name: 'web' });
    expect(objectOf('/api/v1/projects/:name/targets/:cluster', { name: 'web', cluster: 'eu-1' })).toEqual({ kind: 'project', name: 'web/eu-1' });
    expect(objectOf('/api/v1/clusters', {}, 'edge-1')).toEqual({ kind: 'cluster', name: 'edge-1' });
    expect(objectOf('/api/v1/credentials/rotate', {})).toEqual({ kind: 'credential', name: null });
    expect(objectOf('/metrics', {})).toBeNull();
    expect(formatObject({ kind: 'cluster', name: null })).toBe('cluster');
    expect(formatObject({ kind: 'cluster', name: 'a' })).toBe('cluster/a');
  });

  it('bounds a long name', () => {
    expect(objectOf('/api/v1/projects/:name', { name: 'x'.repeat(5000) })!.name!.length).toBe(253);
  });
});

describe('an entry', () => {
  const base = { at: new Date('2027-01-01T00:00:00Z'), method: 'DELETE', path: '/api/v1/projects/web', status: 200, requestId: 'r1', sourceAddress: '10.0.0.1' };

  it('names a token actor by id and name, and the route pattern, never the raw path', () => {
    const e = auditEntryOf({ ...base, route: { pattern: '/api/v1/projects/:name', params: { name: 'web' } }, actor: { tokenId: 't-1', name: 'ci' } });
    expect(e).toEqual({
      at: base.at,
      actor: { kind: 'token', id: 't-1', name: 'ci', email: null },
      tenant: null,
      action: 'DELETE /api/v1/projects/:name',
      object: { kind: 'project', name: 'web' },
      outcome: 200,
      requestId: 'r1',
      sourceAddress: '10.0.0.1',
    });
  });

  it('is anonymous without a principal, unmatched without a route, and fits an OIDC person and a tenant', () => {
    const anon = auditEntryOf({ ...base, status: 401, path: '/api/v1/nothing/here?x=1' });
    expect(anon.actor).toEqual({ kind: 'anonymous', id: 'anonymous', name: 'anonymous', email: null });
    expect(anon.action).toBe('DELETE unmatched');
    expect(anon.object).toBeNull();
    const person = auditEntryOf({ ...base, tenant: 'blue', actor: { tokenId: 'ignored', name: 'Ada', oidc: { subject: 'sub-1', email: 'ada@example.com' } } });
    expect(person.actor).toEqual({ kind: 'oidc', id: 'sub-1', name: 'Ada', email: 'ada@example.com' });
    expect(person.tenant).toBe('blue');
  });
});
