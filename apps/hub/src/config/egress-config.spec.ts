import { defaultEgressConfig } from './egress-config';
import { HubConfigError, parseHubConfig } from './hub-config';

describe('egress settings', () => {
  it('refuses loopback and lists nothing by default', () => {
    expect(parseHubConfig({}).egress).toEqual(defaultEgressConfig());
    expect(defaultEgressConfig()).toEqual({ allow: [], deny: [], allowLoopback: false });
  });

  it('reads the lists and the loopback switch', () => {
    const c = parseHubConfig({ FLOTILLA_EGRESS_ALLOW: ' registry.example.com, *.corp.example ,192.0.2.0/24,', FLOTILLA_EGRESS_DENY: '10.1.0.0/16,db.corp.example', FLOTILLA_EGRESS_ALLOW_LOOPBACK: 'on' }).egress;
    expect(c).toEqual({ allow: ['registry.example.com', '*.corp.example', '192.0.2.0/24'], deny: ['10.1.0.0/16', 'db.corp.example'], allowLoopback: true });
  });

  it('names every bad entry and variable', () => {
    let err: unknown;
    try {
      parseHubConfig({ FLOTILLA_EGRESS_ALLOW: '10.0.0.0/40', FLOTILLA_EGRESS_DENY: 'http://x', FLOTILLA_EGRESS_ALLOW_LOOPBACK: 'maybe' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HubConfigError);
    expect((err as HubConfigError).problems).toEqual([
      'FLOTILLA_EGRESS_ALLOW: egress policy entry "10.0.0.0/40": the prefix length must be an integer from 0 to 32',
      'FLOTILLA_EGRESS_DENY: egress policy entry "http://x": expected a host name, not a URL (drop the scheme and path)',
      'FLOTILLA_EGRESS_ALLOW_LOOPBACK="maybe": expected on or off',
    ]);
  });
});
