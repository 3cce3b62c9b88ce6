import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../e2e/support/eventually';
import { kubeRequest } from './kube-http';
import { defaultKubeOptions, startKube, type RunningKube } from './kube';
import { KwokWatchdog } from './kwok-watchdog';
import type { KubeEndpoint } from './types';

// A kwok that stops playing its stages (here frozen with SIGSTOP) is found by
// its silent nodes and restarted; the new one beats the node again and makes
// new pods Ready. A pause of the whole process is said and not blamed on kwok.

jest.setTimeout(180_000);

describe('the kwok watchdog', () => {
  let workDir: string;
  let kube: RunningKube;

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'flotilla-kwok-watchdog-'));
    // longer than the stages' 10-15 s between beats: a live kwok is never restarted
    kube = await startKube(workDir, { ...defaultKubeOptions(), nodes: 1, kwokWatchdog: { staleMs: 30_000, checkEveryMs: 1_000 } });
  });

  afterAll(async () => {
    await kube?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  const get = async (path: string) => {
    const res = await kubeRequest(kube.endpoint, path, { token: kube.endpoint.admin.token });
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${res.text}`);
    return res.json as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  const heartbeat = async () => Date.parse((await get('/api/v1/nodes/kwok-node-0')).status.conditions.find((c: { type: string }) => c.type === 'Ready').lastHeartbeatTime);

  it('restarts a kwok that stopped beating its nodes, and the new one plays the node and its pods', async () => {
    const watchdog = kube.watchdog!;
    expect(watchdog.restarts).toEqual([]);
    const frozen = kube.pids.kwok;
    process.kill(frozen, 'SIGSTOP');

    const [line] = await eventually('the watchdog to restart kwok', async () => (watchdog.restarts.length > 0 ? watchdog.restarts : undefined), { timeoutMs: 90_000, intervalMs: 500 });
    expect(line).toMatch(new RegExp(`^kwok watchdog: no fake node has beaten for \\d+ s \\(kwok-node-0 Ready=True \\d+ s ago\\); restarting kwok \\(pid ${frozen}\\)\\. Its last log line: \\{`));
    const restartedAt = Date.now();

    expect(kube.rss().kwok).toBeGreaterThan(0);
    // the new kwok beats the node again (heartbeats carry whole seconds)
    await eventually('a heartbeat after the restart', async () => ((await heartbeat()) >= restartedAt - 1_000 ? true : undefined), { timeoutMs: 60_000, intervalMs: 500 });

    // and plays a new pod's stages (created once the node beats: a pod the node lifecycle controller
    // marked not Ready while the node was silent would stay so, kwok's stages leave such pods alone)
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'after-restart', namespace: 'default' }, spec: { nodeName: 'kwok-node-0', containers: [{ name: 'c', image: 'example.com/app:1' }] } };
    const created = await kubeRequest(kube.endpoint, '/api/v1/namespaces/default/pods', { token: kube.endpoint.admin.token, method: 'POST', body: pod });
    expect(created.status).toBe(201);
    await eventually('the new pod Running and Ready', async () => {
      const s = (await get('/api/v1/namespaces/default/pods/after-restart')).status;
      return s.phase === 'Running' && s.conditions?.some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True') ? true : undefined;
    }, { timeoutMs: 30_000, intervalMs: 500 });
    expect(watchdog.restarts).toHaveLength(1);
  });
});

describe('the kwok watchdog, on a clock driven by hand', () => {
  afterEach(() => jest.useRealTimers());

  it('says when its own process ran late (a blocked event loop or a paused machine explains the waits that timed out meanwhile)', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const logs: string[] = [];
    const kwok = { name: 'kwok', child: { pid: 1 } as ChildProcess, logFile: '/nonexistent', respawn: jest.fn() };
    // nothing listens on port 1: the API server "does not answer", so no node is judged
    const endpoint = { server: 'https://127.0.0.1:1', caData: '' } as KubeEndpoint;
    const watchdog = new KwokWatchdog(endpoint, ['kwok-node-0'], kwok, (l) => logs.push(l), { staleMs: 45_000, checkEveryMs: 5_000 }).start();
    jest.setSystemTime(Date.now() + 30_000);
    await jest.advanceTimersByTimeAsync(5_000);
    await watchdog.stop();
    expect(logs[0]).toBe(`kwok watchdog: this process (pid ${process.pid}) ran 30 s late: its event loop was blocked, or the machine paused`);
    expect(kwok.respawn).not.toHaveBeenCalled();
  });
});
