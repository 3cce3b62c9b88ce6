import { EgressPolicy } from '@flotilla/egress';
import { ResourceManager } from '@flotilla/kube';
import { harnessEnv } from '../../../../test/harness/env';
import { openKubeConnection } from './push-connection';
import { RunConnection } from './run-connection';
import type { KubeRequestEvent } from './target-runner';

// the harness API server listens on loopback
const loopbackEgress = new EgressPolicy({ allow: [], deny: [], allowLoopback: true });

const namespace = { apiVersion: 'v1', kind: 'Namespace', name: 'default' };

/** A run on its own lease; `released` counts the lease's releases. */
function open(seen: KubeRequestEvent[] = []): { run: RunConnection; released: () => number; close: () => Promise<void> } {
  const kube = harnessEnv().kube;
  const connection = openKubeConnection({ server: kube.server, caData: kube.caData, token: kube.admin.token }, loopbackEgress, (e) => seen.push(e));
  let releases = 0;
  const run = new RunConnection({ connection, release: () => releases++ });
  return { run, released: () => releases, close: () => connection.close() };
}

describe('RunConnection', () => {
  it('stays held for a holder after the run releases it, and gives the lease back once when the holder lets go', async () => {
    const { run, released, close } = open();
    try {
      const release = run.hold();
      run.release();
      expect(run.open).toBe(true);
      expect(released()).toBe(0);
      expect((await run.client.get(namespace)).metadata.name).toBe('default');
      release();
      release(); // a second call must not release someone else's hold
      run.release();
      expect(run.open).toBe(false);
      expect(released()).toBe(1);
      expect(() => run.hold()).toThrow(/released/);
    } finally {
      await close();
    }
  });

  it('a holder released twice does not give the lease back under the run', async () => {
    const { run, released, close } = open();
    try {
      const release = run.hold();
      release();
      release();
      expect(run.open).toBe(true);
      expect(released()).toBe(0);
      expect((await run.client.get(namespace)).metadata.name).toBe('default');
      run.release();
      expect(run.open).toBe(false);
      expect(released()).toBe(1);
    } finally {
      await close();
    }
  });

  it("the sink's client reads discovery once for the run's views", async () => {
    const seen: KubeRequestEvent[] = [];
    const { run, close } = open(seen);
    try {
      // as the engine adapter builds its manager on the run's connection
      const manager = new ResourceManager(run.connection, undefined, run.discovery);
      await manager.client.get(namespace);
      await run.client.get(namespace);
      expect(seen.filter((e) => e.pathTemplate === '/api/v1')).toHaveLength(1);
    } finally {
      run.release();
      await close();
    }
  });
});
