import { projectIntent } from './project-spec';
import { PROJECT_API_VERSION, type ProjectResource } from './project-resource';

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
