import { inDestinations, matchesNamePattern, projectRefusals, type TenantRules, underRepositoryPrefix } from './tenant-rules';

const rules: TenantRules = {
  name: 'team-a',
  destinations: { groups: ['team-a'] },
  namespaces: ['team-a-*', 'shared'],
  serviceAccounts: ['deployer'],
  repositories: ['oci://ghcr.io/acme/team-a'],
  bootstrapRoles: ['admin'],
};

describe('tenant rules', () => {
  it('matches names exactly or by a trailing-* prefix', () => {
    expect(matchesNamePattern('team-a-*', 'team-a-web')).toBe(true);
    expect(matchesNamePattern('team-a-*', 'team-a-')).toBe(true);
    expect(matchesNamePattern('team-a-*', 'team-b-web')).toBe(false);
    expect(matchesNamePattern('shared', 'shared-2')).toBe(false);
    expect(matchesNamePattern('*', 'anything')).toBe(true);
  });

  it('reads a repository prefix at path boundaries only', () => {
    expect(underRepositoryPrefix('oci://ghcr.io/acme/team-a', 'oci://ghcr.io/acme/team-a')).toBe(true);
    expect(underRepositoryPrefix('oci://ghcr.io/acme/team-a', 'oci://ghcr.io/acme/team-a/web')).toBe(true);
    expect(underRepositoryPrefix('oci://ghcr.io/acme/team-a', 'oci://ghcr.io/acme/team-ab')).toBe(false);
    expect(underRepositoryPrefix('oci://ghcr.io/acme/', 'oci://ghcr.io/acme/x')).toBe(true);
    expect(underRepositoryPrefix('oci://', 'oci://anything/at/all')).toBe(true);
  });

  it('places a cluster in the destinations by group or label selector', () => {
    expect(inDestinations({ groups: ['team-a'] }, { name: 'c', group: 'team-a', labels: {} })).toBe(true);
    expect(inDestinations({ groups: ['team-a'] }, { name: 'c', group: 'lab', labels: {} })).toBe(false);
    expect(inDestinations({ labelSelector: { matchLabels: { tier: 'shared' } } }, { name: 'c', group: 'lab', labels: { tier: 'shared' } })).toBe(true);
    expect(inDestinations({ labelSelector: {} }, { name: 'c', group: 'x', labels: {} })).toBe(true);
    expect(inDestinations({}, { name: 'c', group: 'x', labels: {} })).toBe(false);
  });

  it('names every rule a Project breaks', () => {
    const ok = { namespace: 'team-a-web', serviceAccountName: 'deployer', sourceRepository: 'oci://ghcr.io/acme/team-a/web', bootstrapRole: 'admin' as const };
    expect(projectRefusals(rules, ok)).toEqual([]);
    const bad = projectRefusals(rules, { namespace: 'kube-system', serviceAccountName: 'root', sourceRepository: 'oci://ghcr.io/evil/x', bootstrapRole: 'cluster-admin' });
    expect(bad.map((r) => r.slice(r.lastIndexOf('(rule:')))).toEqual(['(rule: namespaces)', '(rule: serviceAccounts)', '(rule: repositories)', '(rule: bootstrapRoles)']);
    expect(projectRefusals({ ...rules, bootstrapRoles: [] }, ok)).toEqual(['bootstrap is not allowed in tenant "team-a" (rule: bootstrapRoles)']);
  });
});
