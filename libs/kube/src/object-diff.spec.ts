import { diffObjects, formatDiff } from './object-diff';

describe('object diff', () => {
  const before = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'w', resourceVersion: '1', labels: { a: '1' } }, spec: { replicas: 1, template: { spec: { containers: [{ image: 'a:1' }] } } } };
  const after = { ...before, metadata: { name: 'w', resourceVersion: '2', labels: { a: '1', b: '2' } }, spec: { replicas: 2, template: { spec: { containers: [{ image: 'a:2' }] } } } };

  it('lists changed paths and skips server-owned metadata', () => {
    expect(diffObjects(before, after)).toEqual([
      { path: 'metadata.labels.b', kind: 'added', after: '2' },
      { path: 'spec.replicas', kind: 'changed', before: 1, after: 2 },
      { path: 'spec.template.spec.containers[0].image', kind: 'changed', before: 'a:1', after: 'a:2' },
    ]);
  });

  it('renders readable text', () => {
    expect(formatDiff('Deployment/w', diffObjects(before, after))).toBe(
      ['Deployment/w', '  metadata.labels.b', '    + 2', '  spec.replicas', '    - 1', '    + 2', '  spec.template.spec.containers[0].image', '    - a:1', '    + a:2'].join('\n'),
    );
    expect(formatDiff('x', [])).toBe('');
  });
});
