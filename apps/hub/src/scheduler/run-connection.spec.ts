import { EgressPolicy } from '@flotilla/egress';
import { KubeApiError, ResourceManager } from '@flotilla/kube';
import { harnessEnv } from '../../../../test/harness/env';
import { openKubeConnection } from './push-connection';
import { RunConnection } from './run-connection';
import type { KubeRequestEvent } from './target-runner';

// the harness API server listens on loopback
const loopbackEgress = new EgressPolicy({ allow: [], deny: [], allowLoopback: true });

const namespace = { apiVersion: 'v1', kind: 'Namespace', name: 'default' };

function open(seen: KubeRequestEvent[] = []): RunConnection {
  const kube = harnessEnv().kube;
  return new RunConnection(openKubeConnection({ server: kube.server, caData: kube.caData, token: kube.admin.token }, loopbackEgress, (e) => seen.push(e)));
}

describe('RunConnection', () => {
  it('stays open for a holder after the run releases it, and closes when the holder lets go', async () => {
    const run = open();
    const release = run.hold();
    run.release();
    expect(run.open).toBe(true);
    expect((await run.client.get(namespace)).metadata.name).toBe('default');
    release();
    release(); // a second call must not release someone else's hold
    expect(run.open).toBe(false);
    await expect(run.client.get(namespace)).rejects.toBeInstanceOf(KubeApiError);
    expect(() => run.hold()).toThrow(/closed/);
  });

  it('a holder released twice does not close it under the run', async () => {
    const run = open();
    const release = run.hold();
    release();
    release();
    expect(run.open).toBe(true);
    expect((await run.client.get(namespace)).metadata.name).toBe('default');
    run.release();
    expect(run.open).toBe(false);
  });

  it("the sink's client reads discovery once for the run's views", async () => {
    const seen: KubeRequestEvent[] = [];
    const run = open(seen);
    try {
      // as the engine adapter builds its manager on the run's connection
      const manager = new ResourceManager(run.connection, undefined, run.discovery);
      await manager.client.get(namespace);
      await run.client.get(namespace);
      expect(seen.filter((e) => e.pathTemplate === '/api/v1')).toHaveLength(1);
    } finally {
      run.release();
    }
  });
});
