import { EVENT_MESSAGE_LIMIT, instanceEventText, instanceKubeEvent } from './instance-event';
import type { ReportInstance } from './run-report';

const instance = (extra: Partial<ReportInstance> = {}): ReportInstance => ({
  name: 'web',
  namespace: 'apps',
  component: 'front',
  action: 'applied',
  bundle: 'b',
  module: { name: 'flotilla.test/configs', repository: 'oci://r/m', version: '1.0.0', digest: 'sha256:1' },
  ready: true,
  durationMs: 42,
  counts: { created: 1, configured: 0, unchanged: 1, deleted: 0, skipped: 0 },
  objects: ['ConfigMap/apps/a', 'ConfigMap/apps/b'],
  ...extra,
});

describe('instance events', () => {
  it('names the instance, module version, duration, counts and objects', () => {
    expect(instanceEventText(instance())).toEqual({
      reason: 'InstanceApplied',
      type: 'Normal',
      message: 'instance apps/web (component front) module flotilla.test/configs@1.0.0 applied in 42 ms: created 1, configured 0, unchanged 1, deleted 0; objects: ConfigMap/apps/a, ConfigMap/apps/b',
    });
  });

  it('a failure is a Warning that ends with the error', () => {
    const text = instanceEventText(instance({ ready: false, objects: [], error: { reason: 'ApplyFailed', step: 'apply', message: 'component front, instance web: apply: forbidden', retryable: true } }));
    expect(text).toMatchObject({ reason: 'InstanceApplyFailed', type: 'Warning' });
    expect(text.message).toMatch(/; error: component front, instance web: apply: forbidden$/);
    expect(text.message).toContain(' apply failed after 42 ms: ');
  });

  it('a build failure says so, not "applied"', () => {
    const text = instanceEventText(instance({ ready: false, objects: [], module: undefined, durationMs: 4, error: { reason: 'BuildFailed', step: 'build', message: 'component front, instance web: build: values.cue:3: conflict', retryable: false } }));
    expect(text.message).toMatch(/^instance apps\/web \(component front\) build failed after 4 ms: /);
    expect(text.message).not.toContain('applied');
  });

  it('pruned and deleted instances have their own reasons; long messages are cut', () => {
    const objects = Array.from({ length: 100 }, (_, i) => `ConfigMap/apps/object-${i}`);
    const pruned = instanceEventText(instance({ action: 'pruned', module: undefined, objects }));
    expect(pruned.reason).toBe('InstancePruned');
    expect(pruned.message.length).toBe(EVENT_MESSAGE_LIMIT);
    expect(pruned.message.endsWith('...')).toBe(true);
    expect(instanceEventText(instance({ action: 'deleted' })).reason).toBe('InstanceDeleted');
    expect(instanceEventText(instance({ action: 'deleted', error: { reason: 'PruneFailed', step: 'prune', message: 'x', retryable: true } })).reason).toBe('InstanceDeleteFailed');
  });

  it('the Kubernetes event points at the inventory Secret', () => {
    const text = instanceEventText(instance());
    const ev = instanceKubeEvent({ instance: instance(), project: { name: 'shop', namespace: 'team' }, cluster: 'c1', revision: 'latest@sha256:abc' }, text, new Date('2026-11-22T04:00:00.123Z'));
    expect(ev).toMatchObject({
      kind: 'Event',
      metadata: { namespace: 'apps', annotations: { 'project.flotilla.dev/revision': 'latest@sha256:abc', 'project.flotilla.dev/component': 'front', 'project.flotilla.dev/name': 'shop' } },
      involvedObject: { kind: 'Secret', name: 'timoni.web', namespace: 'apps' },
      reason: 'InstanceApplied',
      type: 'Normal',
      message: text.message,
      firstTimestamp: '2026-11-22T04:00:00Z',
      reportingInstance: 'c1',
    });
    expect(ev.metadata.name).toMatch(/^timoni\.web\.[0-9a-f]+$/);
  });
});
