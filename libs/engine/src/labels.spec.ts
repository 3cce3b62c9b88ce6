import { instanceLabels, projectSelector } from './labels';

describe('labels', () => {
  it('an instance carries its bundle, Project and component', () => {
    expect(instanceLabels({ name: 'shop', namespace: 'team-a' }, 'frontend', 'web')).toEqual({
      'bundle.timoni.sh/name': 'web',
      'project.flotilla.dev/name': 'shop',
      'project.flotilla.dev/namespace': 'team-a',
      'project.flotilla.dev/component': 'frontend',
    });
  });

  it('selects Timoni inventory Secrets of one Project', () => {
    expect(projectSelector({ name: 'shop', namespace: 'team-a' })).toBe(
      'app.kubernetes.io/component=instance,app.kubernetes.io/created-by=timoni,project.flotilla.dev/name=shop,project.flotilla.dev/namespace=team-a',
    );
  });
});
