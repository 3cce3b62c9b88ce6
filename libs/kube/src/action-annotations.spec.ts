import { isForceEnabled, isOneOff, isPruneDisabled, isWaitDisabled } from './action-annotations';
import type { KubeObject } from './types';

const withMeta = (labels: Record<string, string>, annotations: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'x', labels, annotations },
});

describe('behaviour annotations', () => {
  it('reads annotations case-insensitively', () => {
    expect(isForceEnabled(withMeta({}, { 'action.timoni.sh/force': 'Enabled' }))).toBe(true);
    expect(isPruneDisabled(withMeta({}, { 'action.timoni.sh/prune': 'DISABLED' }))).toBe(true);
  });

  it('reads labels too', () => {
    expect(isOneOff(withMeta({ 'action.timoni.sh/one-off': 'enabled' }))).toBe(true);
    expect(isWaitDisabled(withMeta({ 'action.timoni.sh/wait': 'disabled' }))).toBe(true);
  });

  it('ignores other values and missing metadata', () => {
    expect(isForceEnabled(withMeta({}, { 'action.timoni.sh/force': 'disabled' }))).toBe(false);
    expect(isPruneDisabled(withMeta({}, { 'action.timoni.sh/prune': 'enabled' }))).toBe(false);
    expect(isOneOff(undefined)).toBe(false);
  });
});
