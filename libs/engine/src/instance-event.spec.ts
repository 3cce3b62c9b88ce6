import type { ChangeSetEntry } from '@flotilla/kube';
import { countChanges } from './change-counts';
import { InstanceApplyError } from './errors';
import { EVENT_MESSAGE_LIMIT, instanceEventText, instanceKubeEvent } from './instance-event';
import type { InstanceAppliedEvent, InstanceResult, RunContext } from './types';

const context: RunContext = {
  project: { name: 'shop', namespace: 'team', source: { repository: 'oci://r/p', tag: 'latest', path: 'project.cue' }, serviceAccountName: 'sa', annotations: {} },
  cluster: { name: 'c1', group: 'g' },
  source: 'oci://r/p',
  revision: 'latest@sha256:abc',
};
const entry = (name: string, action: ChangeSetEntry['action']): ChangeSetEntry => ({ ref: { group: '', version: 'v1', kind: 'ConfigMap', namespace: 'apps', name }, subject: `ConfigMap/apps/${name}`, action });
const instance = (extra: Partial<InstanceResult> = {}): InstanceResult => ({
  name: 'web', namespace: 'apps', component: 'front', bundle: 'b', changes: [entry('a', 'created'), entry('b', 'unchanged')], counts: countChanges([]),
  ready: true, durationMs: 42, module: { name: 'flotilla.test/configs', repository: 'oci://r/m', version: '1.0.0', digest: 'sha256:1' }, ...extra,
});

describe('instance events', () => {
  it('lists the applied objects, module version, revision and duration', () => {
    expect(instanceEventText({ context, instance: instance() })).toEqual({
      reason: 'InstanceApplied',
      type: 'Normal',
      message: 'ConfigMap/apps/a created\nConfigMap/apps/b unchanged\nmodule flotilla.test/configs:1.0.0, revision latest@sha256:abc, 42ms',
    });
  });

  it('a failure is a Warning that starts with the error', () => {
    const ev: InstanceAppliedEvent = { context, instance: instance({ ready: false, changes: [], error: new InstanceApplyError('front', 'web', { cause: new Error('forbidden') }) }) };
    const text = instanceEventText(ev);
    expect(text.reason).toBe('InstanceApplyFailed');
    expect(text.type).toBe('Warning');
    expect(text.message.split('\n')[0]).toBe('error: component front, instance web: apply: forbidden');
  });

  it('pruned instances have their own reason; long messages are cut', () => {
    const changes = Array.from({ length: 100 }, (_, i) => entry(`object-${i}`, 'deleted'));
    const text = instanceEventText({ context, instance: { name: 'old', namespace: 'apps', component: 'gone', changes, counts: countChanges(changes) } });
    expect(text.reason).toBe('InstancePruned');
    expect(text.message.length).toBe(EVENT_MESSAGE_LIMIT);
    expect(text.message.endsWith('...')).toBe(true);
  });

  it('the Kubernetes event points at the inventory Secret', () => {
    const ev = instanceKubeEvent({ context, instance: instance() }, new Date('2026-11-22T04:00:00.123Z'));
    expect(ev).toMatchObject({
      kind: 'Event',
      metadata: { namespace: 'apps', annotations: { 'project.flotilla.dev/revision': 'latest@sha256:abc', 'project.flotilla.dev/component': 'front' } },
      involvedObject: { kind: 'Secret', name: 'timoni.web', namespace: 'apps' },
      reason: 'InstanceApplied',
      type: 'Normal',
      firstTimestamp: '2026-11-22T04:00:00Z',
      reportingInstance: 'c1',
    });
    expect(ev.metadata.name).toMatch(/^timoni\.web\.[0-9a-f]+$/);
  });
});
