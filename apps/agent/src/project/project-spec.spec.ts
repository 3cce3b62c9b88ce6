import { projectResourceOf } from '../hub/assignment-resource';
import { projectIntent, projectSpecOf } from './project-spec';
import { HUB_TENANT_POLICY_ANNOTATION, PROJECT_API_VERSION, type ProjectResource } from './project-resource';

function project(spec: ProjectResource['spec'], annotations: Record<string, string> = {}): ProjectResource {
  return { apiVersion: PROJECT_API_VERSION, kind: 'Project', metadata: { name: 'shop', namespace: 'team-a', annotations }, spec };
}

describe('projectIntent', () => {
  it('fills the RFC defaults and keeps only runtime annotations as values', () => {
    const r = projectIntent(project({ source: { repository: 'oci://reg/shop' } }, { 'runtime.timoni.sh/cluster': 'prod-1', 'other.io/x': 'y', 'reconcile.timoni.sh/requestedAt': 't1' }));
    expect(r).toEqual({
      ok: true,
      intent: {
        spec: { name: 'shop', namespace: 'team-a', serviceAccountName: 'shop', source: { repository: 'oci://reg/shop', tag: 'latest', path: 'project.cue' }, annotations: { 'runtime.timoni.sh/cluster': 'prod-1' } },
        suspended: false,
        deletionPolicy: 'Delete',
        requestedAt: 't1',
      },
    });
  });

  it('reads suspend and the deletion policy', () => {
    const r = projectIntent(project({ serviceAccountName: 'deployer', source: { repository: 'oci://reg/shop', tag: 'v1', path: 'p/project.cue' } }, { 'reconcile.timoni.sh/suspend': 'true', 'reconcile.timoni.sh/deletionPolicy': 'Orphan' }));
    expect(r.ok && r.intent).toMatchObject({ suspended: true, deletionPolicy: 'Orphan', spec: { serviceAccountName: 'deployer', source: { tag: 'v1', path: 'p/project.cue' } } });
  });

  it('names every bad value', () => {
    const r = projectIntent(project({ source: { repository: 'https://reg/shop' } }, { 'reconcile.timoni.sh/suspend': 'yes', 'reconcile.timoni.sh/deletionPolicy': 'Keep' }));
    expect(r).toEqual({
      ok: false,
      problems: [
        'spec.source.repository "https://reg/shop" must start with oci://',
        'annotation reconcile.timoni.sh/suspend="yes" must be "true" or "false"',
        'annotation reconcile.timoni.sh/deletionPolicy="Keep" must be "Delete" or "Orphan"',
      ],
    });
  });
});

describe("a hub assignment's tenant policy", () => {
  const assignment = {
    targetId: 't1', generation: 3, projectName: 'web', projectNamespace: 'team-a-web', repository: 'oci://r.example/team-a/web', tag: 'v1', path: 'project.cue',
    digest: `sha256:${'a'.repeat(64)}`, serviceAccountName: 'deployer', annotations: {}, clusterName: 'c1', clusterGroup: 'prod', intervalSeconds: 60, suspend: false, delete: false,
    registryCredentials: undefined,
  };

  it('travels into the engine spec the agent runs', () => {
    const resource = projectResourceOf({ ...assignment, tenantPolicy: { tenant: 'team-a', namespaces: ['team-a-*'], serviceAccounts: ['deployer'] } });
    const parsed = projectIntent(resource);
    expect(parsed.ok && parsed.intent.spec.policy).toEqual({ tenant: 'team-a', namespaces: ['team-a-*'], serviceAccounts: ['deployer'] });
    // an assignment from a hub without tenants carries none
    expect(projectSpecOf(projectResourceOf({ ...assignment, tenantPolicy: undefined })).policy).toBeUndefined();
  });

  it('allows nothing when it cannot be read, and says so', () => {
    const resource = projectResourceOf({ ...assignment, tenantPolicy: undefined });
    resource.metadata.annotations![HUB_TENANT_POLICY_ANNOTATION] = '{"tenant": "team-a", "namespaces": "*"}';
    const parsed = projectIntent(resource);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.problems).toEqual([`annotation ${HUB_TENANT_POLICY_ANNOTATION} must be JSON {"tenant": string, "namespaces": [string], "serviceAccounts": [string]}`]);
    expect(projectSpecOf(resource).policy).toEqual({ tenant: '(unreadable policy)', namespaces: [], serviceAccounts: [] });
  });
});
