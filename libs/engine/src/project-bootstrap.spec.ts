import { bootstrapObjects, dockerConfigJson } from './project-bootstrap';

const project = { name: 'shop', namespace: 'shop-ns', serviceAccountName: 'shop-sa', source: { repository: 'oci://registry.example:5000/acme/shop', tag: 'latest', path: 'project.cue' }, annotations: {} };

describe('bootstrapObjects', () => {
  it('makes the namespace, an image pull secret for the source registry, the service account using it and an admin RoleBinding', () => {
    const objects = bootstrapObjects({ project, role: 'admin', registryCredentials: { kind: 'basic', username: 'u', password: 'p' } });
    expect(objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`)).toEqual([
      'Namespace//shop-ns',
      'Secret/shop-ns/shop-sa-registry',
      'ServiceAccount/shop-ns/shop-sa',
      'RoleBinding/shop-ns/flotilla:shop',
    ]);
    const secret = objects[1] as unknown as { type: string; data: Record<string, string> };
    expect(secret.type).toBe('kubernetes.io/dockerconfigjson');
    expect(JSON.parse(Buffer.from(secret.data['.dockerconfigjson'], 'base64').toString())).toEqual({ auths: { 'registry.example:5000': { username: 'u', password: 'p', auth: Buffer.from('u:p').toString('base64') } } });
    expect(objects[2]).toMatchObject({ imagePullSecrets: [{ name: 'shop-sa-registry' }] });
    expect(objects[3]).toMatchObject({ roleRef: { kind: 'ClusterRole', name: 'admin' }, subjects: [{ kind: 'ServiceAccount', name: 'shop-sa', namespace: 'shop-ns' }] });
    for (const o of objects) expect(o.metadata.labels).toEqual({ 'app.kubernetes.io/managed-by': 'flotilla-bootstrap', 'project.flotilla.dev/name': 'shop', 'project.flotilla.dev/namespace': 'shop-ns' });
  });

  it('binds cluster-admin cluster-wide, and makes no pull secret without credentials', () => {
    const objects = bootstrapObjects({ project, role: 'cluster-admin' });
    expect(objects.map((o) => o.kind)).toEqual(['Namespace', 'ServiceAccount', 'ClusterRoleBinding']);
    expect(objects[1]).not.toHaveProperty('imagePullSecrets');
    expect(objects[2]).toMatchObject({ metadata: { name: 'flotilla:shop-ns:shop' }, roleRef: { name: 'cluster-admin' } });
  });

  it('passes a docker config through and writes a token as a registry token', () => {
    expect(dockerConfigJson('r', { kind: 'dockerconfigjson', config: '{"auths":{}}' })).toBe('{"auths":{}}');
    expect(JSON.parse(dockerConfigJson('r:1', { kind: 'token', token: 't' }))).toEqual({ auths: { 'r:1': { registrytoken: 't' } } });
  });
});
