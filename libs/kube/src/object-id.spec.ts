import { InvalidObjectError } from './errors';
import { formatSubject, inventoryEntryId, objectRef, parseApiVersion, parseInventoryEntryId } from './object-id';

describe('object ids', () => {
  it('splits core and grouped apiVersions', () => {
    expect(parseApiVersion('v1')).toEqual({ group: '', version: 'v1' });
    expect(parseApiVersion('apps/v1')).toEqual({ group: 'apps', version: 'v1' });
  });

  it('builds Timoni inventory ids for namespaced, core and cluster-scoped objects', () => {
    expect(inventoryEntryId({ namespace: 'apps', name: 'app', group: '', kind: 'Service' })).toBe('apps_app__Service');
    expect(inventoryEntryId({ namespace: 'apps', name: 'app', group: 'apps', kind: 'Deployment' })).toBe('apps_app_apps_Deployment');
    expect(inventoryEntryId({ namespace: '', name: 'apps', group: '', kind: 'Namespace' })).toBe('_apps__Namespace');
  });

  it('escapes ":" in RBAC names as "__" and reads it back', () => {
    const ref = { namespace: '', name: 'system:app:reader', group: 'rbac.authorization.k8s.io', kind: 'ClusterRole' };
    const id = inventoryEntryId(ref);
    expect(id).toBe('_system__app__reader_rbac.authorization.k8s.io_ClusterRole');
    expect(parseInventoryEntryId(id)).toEqual(ref);
  });

  it('round-trips ids', () => {
    for (const id of ['apps_app__Service', 'apps_app_apps_Deployment', '_apps__Namespace']) {
      expect(inventoryEntryId(parseInventoryEntryId(id))).toBe(id);
    }
  });

  it('rejects malformed ids and objects with a clear error', () => {
    expect(() => parseInventoryEntryId('nope')).toThrow(InvalidObjectError);
    expect(() => objectRef({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '' } })).toThrow(/apiVersion, kind and metadata.name/);
  });

  it('formats subjects like Flux', () => {
    const ref = objectRef({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'apps' } });
    expect(formatSubject(ref)).toBe('Deployment/apps/web');
    expect(formatSubject({ ...ref, namespace: '' })).toBe('Deployment/web');
  });
});
