import { INSTANCE_INFO_LABELS, instanceInfoLabels } from './instance-metrics';
import type { ReportInstance } from './run-report';

const instance: ReportInstance = {
  name: 'web',
  namespace: 'apps',
  component: 'app',
  action: 'applied',
  module: { name: 'podinfo', repository: 'oci://reg/podinfo', version: '6.5.0', digest: 'sha256:m' },
  ready: true,
  durationMs: 10,
  counts: { created: 1, configured: 0, unchanged: 0, deleted: 0 } as ReportInstance['counts'],
  objects: [],
};

describe('instanceInfoLabels', () => {
  it('gives every label of the RFC, in its spelling', () => {
    const labels = instanceInfoLabels({ name: 'shop', namespace: 'team-a', source: 'oci://reg/shop', revision: 'latest@sha256:aa' }, instance);
    expect(Object.keys(labels)).toEqual([...INSTANCE_INFO_LABELS]);
    expect(labels).toMatchObject({ ready: 'true', module_name: 'podinfo', module_version: '6.5.0', project_component: 'app', project_revison: 'latest@sha256:aa' });
  });

  it('is not ready when the apply failed, whatever the readiness says', () => {
    const failed = { ...instance, error: { reason: 'ApplyFailed', step: 'apply', message: 'x', retryable: true } } as ReportInstance;
    expect(instanceInfoLabels({ name: 's', namespace: 'n', source: 'o', revision: 'r' }, failed).ready).toBe('false');
  });
});
