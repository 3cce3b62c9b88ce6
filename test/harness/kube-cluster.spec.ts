import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeRequest } from './kube-http';
import { readKubeClusters, startKubeClusters, stopKubeClusters } from './kube-cluster';
import { processRssBytes } from './process-rss';

// Extra clusters for fleets (the demo, rollouts over groups): started side by
// side, described in clusters.json, stopped from the record alone.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'flotilla-kube-clusters-'));
});
afterEach(async () => {
  await stopKubeClusters(dir).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe('startKubeClusters', () => {
  it('starts clusters with their own fake nodes, records them, and stops them from the record', async () => {
    const clusters = await startKubeClusters(dir, ['east', 'west'], { nodes: 1 });
    expect(clusters.map((c) => c.name)).toEqual(['east', 'west']);
    expect(new Set(clusters.map((c) => c.endpoint.server)).size).toBe(2);
    for (const c of clusters) {
      expect(c.describe()).toMatch(new RegExp(`^${c.name}: https://127\\.0\\.0\\.1:\\d+ ready in [\\d.]+ s, RSS \\d+ MB \\(etcd \\d+ MB, kube-apiserver \\d+ MB, kube-controller-manager \\d+ MB, kube-scheduler \\d+ MB, kwok \\d+ MB\\)$`));
      // the written kubeconfig reaches its own cluster, whose fake node kwok made Ready
      const config = JSON.parse(readFileSync(c.kubeconfig, 'utf8'));
      const [{ cluster }] = config.clusters;
      const [{ user }] = config.users;
      expect(cluster.server).toBe(c.endpoint.server);
      const nodes = await kubeRequest({ server: cluster.server, caData: Buffer.from(cluster['certificate-authority-data'], 'base64').toString() }, '/api/v1/nodes', { token: user.token });
      expect((nodes.json as { items: { metadata: { name: string } }[] }).items.map((n) => n.metadata.name)).toEqual(['kwok-node-0']);
    }
    const recorded = readKubeClusters(dir);
    expect(recorded.map((r) => [r.name, r.server])).toEqual(clusters.map((c) => [c.name, c.endpoint.server]));
    const pids = recorded.flatMap((r) => Object.values(r.pids));
    expect(pids).toHaveLength(10);
    expect(pids.every((pid) => processRssBytes(pid) > 0)).toBe(true);

    await stopKubeClusters(dir);
    expect(pids.filter((pid) => processRssBytes(pid) > 0)).toEqual([]);
    expect(existsSync(dir)).toBe(false);
  });
});
