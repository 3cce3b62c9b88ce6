import { collapseLinkWrites } from './agent-link-writes';

describe('collapseLinkWrites', () => {
  it('keeps the last connect or disconnect of each cluster', () => {
    const b = collapseLinkWrites([
      { clusterId: 'a', kind: 'connected', agentVersion: '1' },
      { clusterId: 'a', kind: 'disconnected' },
      { clusterId: 'b', kind: 'disconnected' },
      { clusterId: 'b', kind: 'connected', agentVersion: '2' },
    ]);
    expect(b.connected).toEqual(new Map([['b', '2']]));
    expect(b.disconnected).toEqual(['a']);
    expect(b.heartbeats).toEqual([]);
  });

  it('writes a heartbeat only for clusters whose state does not change in the batch, once each', () => {
    const b = collapseLinkWrites([
      { clusterId: 'a', kind: 'heartbeat' },
      { clusterId: 'c', kind: 'heartbeat' },
      { clusterId: 'a', kind: 'connected', agentVersion: '1' },
      { clusterId: 'c', kind: 'heartbeat' },
    ]);
    expect(b.connected).toEqual(new Map([['a', '1']]));
    expect(b.heartbeats).toEqual(['c']);
  });
});
