import { ownershipTakeoverPatch } from './ownership-takeover';
import type { KubeObject } from './types';

describe('ownership takeover', () => {
  const live: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'c',
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', keep: 'x' },
      managedFields: [
        { manager: 'kubectl-client-side-apply', operation: 'Update', time: 't', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } },
        { manager: 'helm', operation: 'Update', subresource: 'status' },
        { manager: 'other', operation: 'Update' },
      ],
    },
  };

  it('renames kubectl/Helm entries to timoni Apply and drops their annotations', () => {
    expect(ownershipTakeoverPatch(live)).toEqual([
      {
        op: 'replace',
        path: '/metadata/managedFields',
        value: [
          { manager: 'timoni', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } },
          { manager: 'helm', operation: 'Update', subresource: 'status' },
          { manager: 'other', operation: 'Update' },
        ],
      },
      { op: 'remove', path: '/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration' },
    ]);
  });

  it('is empty for objects nobody else manages', () => {
    expect(ownershipTakeoverPatch({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', managedFields: [{ manager: 'timoni', operation: 'Apply' }] } })).toEqual([]);
  });
});
