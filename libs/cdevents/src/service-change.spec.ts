import { serviceChange } from './service-change';

describe('serviceChange', () => {
  const history = { inventory: new Set(['apps/web']), lastApplied: 'latest@sha256:b', earlier: new Set(['latest@sha256:a']) };
  it('decides from the inventory and the revisions applied before', () => {
    expect(serviceChange(history, 'apps/db', 'latest@sha256:b')).toBe('deployed');
    expect(serviceChange(history, 'apps/web', 'latest@sha256:c')).toBe('upgraded');
    expect(serviceChange(history, 'apps/web', 'latest@sha256:a')).toBe('rolledback');
    expect(serviceChange(history, 'apps/web', 'latest@sha256:b')).toBeNull();
    expect(serviceChange({ inventory: new Set(), lastApplied: null, earlier: new Set() }, 'apps/web', 'latest@sha256:a')).toBe('deployed');
  });
});
