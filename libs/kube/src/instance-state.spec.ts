import { InventoryError } from './errors';
import { buildInstanceRecord, decodeInstanceRecord, encodeInstanceRecord, recordObjects, sameInventory, staleObjects } from './instance-state';

const objects = [
  { group: '', version: 'v1', kind: 'Service', namespace: 'apps', name: 'app' },
  { group: 'apps', version: 'v1', kind: 'Deployment', namespace: 'apps', name: 'app' },
];

const input = {
  name: 'app',
  namespace: 'apps',
  labels: { 'bundle.timoni.sh/name': 'b' },
  module: { name: 'timoni.sh/podinfo', repository: 'oci://ghcr.io/stefanprodan/modules/podinfo', version: '6.14.1', digest: 'sha256:abc' },
  values: 'values: {\n\treplicas: 1\n}\n',
  objects,
  images: ['ghcr.io/stefanprodan/podinfo:6.14.1'],
  lastTransitionTime: new Date('2026-01-02T03:04:05.678Z'),
};

describe('instance state record', () => {
  it('matches the Timoni JSON field for field and in key order', () => {
    expect(encodeInstanceRecord(buildInstanceRecord(input))).toBe(
      '{"kind":"Instance","apiVersion":"timoni.sh/v1alpha1",' +
        '"metadata":{"name":"app","namespace":"apps","labels":{"bundle.timoni.sh/name":"b"}},' +
        '"module":{"name":"timoni.sh/podinfo","repository":"oci://ghcr.io/stefanprodan/modules/podinfo","version":"6.14.1","digest":"sha256:abc"},' +
        '"values":"values: {\\n\\treplicas: 1\\n}\\n","lastTransitionTime":"2026-01-02T03:04:05Z",' +
        '"inventory":{"entries":[{"id":"apps_app__Service","v":"v1"},{"id":"apps_app_apps_Deployment","v":"v1"}]},' +
        '"images":["ghcr.io/stefanprodan/podinfo:6.14.1"]}',
    );
  });

  it('reads records Timoni wrote, including creationTimestamp null and module annotations', () => {
    const json = JSON.stringify({
      kind: 'Instance',
      apiVersion: 'timoni.sh/v1alpha1',
      metadata: { name: 'app', namespace: 'apps', creationTimestamp: null },
      module: { name: 'm', repository: 'oci://r/m', version: '1.0.0', digest: 'sha256:x', annotations: { 'org.opencontainers.image.source': 's' } },
      values: '',
      inventory: { entries: [{ id: '_system__x_rbac.authorization.k8s.io_ClusterRole', v: 'v1' }] },
    });
    const rec = decodeInstanceRecord(json, 'Secret/apps/timoni.app');
    expect(recordObjects(rec)).toEqual([{ namespace: '', name: 'system:x', group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', version: 'v1' }]);
  });

  it('rejects foreign JSON naming the Secret', () => {
    expect(() => decodeInstanceRecord('{"kind":"Other"}', 'Secret/apps/timoni.app')).toThrow(InventoryError);
    expect(() => decodeInstanceRecord('{', 'Secret/apps/timoni.app')).toThrow(/Secret\/apps\/timoni.app/);
  });

  it('computes the stale set as previous minus current', () => {
    const prev = recordObjects(buildInstanceRecord(input));
    expect(staleObjects(prev, [objects[1]])).toEqual([objects[0]]);
    expect(staleObjects(prev, objects)).toEqual([]);
  });

  it('compares inventories ignoring order', () => {
    const a = buildInstanceRecord(input);
    const b = buildInstanceRecord({ ...input, objects: [...objects].reverse() });
    expect(sameInventory(a, b)).toBe(true);
    expect(sameInventory(a, buildInstanceRecord({ ...input, objects: [objects[0]] }))).toBe(false);
  });
});
