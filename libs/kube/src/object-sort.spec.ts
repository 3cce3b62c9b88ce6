import { sortForApply, sortForDelete, stageObjects } from './object-sort';
import type { KubeObject } from './types';

const obj = (apiVersion: string, kind: string, name: string, namespace?: string): KubeObject => ({
  apiVersion,
  kind,
  metadata: namespace ? { name, namespace } : { name },
});

describe('apply order', () => {
  const objects = [
    obj('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', 'hook'),
    obj('apps/v1', 'Deployment', 'web', 'apps'),
    obj('example.com/v1', 'Widget', 'w', 'apps'),
    obj('v1', 'Service', 'web', 'apps'),
    obj('v1', 'Namespace', 'apps'),
    obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'widgets.example.com'),
    obj('rbac.authorization.k8s.io/v1', 'Role', 'r', 'apps'),
    obj('rbac.authorization.k8s.io/v1', 'ClusterRole', 'cr'),
    obj('storage.k8s.io/v1', 'StorageClass', 'fast'),
    obj('v1', 'ConfigMap', 'b', 'apps'),
    obj('v1', 'ConfigMap', 'a', 'apps'),
  ];

  it('sorts by the kind table, unknown kinds before webhooks, ties by name', () => {
    expect(sortForApply(objects).map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'CustomResourceDefinition/widgets.example.com',
      'Namespace/apps',
      'ClusterRole/cr',
      'StorageClass/fast',
      'Role/r',
      'ConfigMap/a',
      'ConfigMap/b',
      'Service/web',
      'Deployment/web',
      'Widget/w',
      'ValidatingWebhookConfiguration/hook',
    ]);
  });

  it('reverses for delete', () => {
    expect(sortForDelete(objects)[0].kind).toBe('ValidatingWebhookConfiguration');
    expect(sortForDelete(objects).at(-1)?.kind).toBe('CustomResourceDefinition');
  });

  it('stages CRDs/Namespaces/ClusterRoles, then classes, then Roles, then the rest', () => {
    const stages = stageObjects(objects);
    expect(stages.map((s) => [s.name, s.wait, s.objects.map((o) => o.kind)])).toEqual([
      ['cluster-definitions', true, ['CustomResourceDefinition', 'Namespace', 'ClusterRole']],
      ['classes', true, ['StorageClass']],
      ['roles', false, ['Role']],
      ['resources', false, ['ConfigMap', 'ConfigMap', 'Service', 'Deployment', 'Widget', 'ValidatingWebhookConfiguration']],
    ]);
  });

  it('drops empty stages', () => {
    expect(stageObjects([obj('v1', 'ConfigMap', 'a', 'x')]).map((s) => s.name)).toEqual(['resources']);
  });
});
