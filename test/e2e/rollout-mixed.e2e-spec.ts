import { installAgent } from '../../apps/agent/test/install';
import { freePort } from '../harness/ports';
import { UNPULLABLE_IMAGE } from '../harness/kube-nodes';
import { shopProjectFiles, type ShopRevision } from './fixtures/projects';
import { adminCall } from './support/admin-call';
import { startConnectedAgent, type ConnectedAgent } from './support/connected-agent';
import { eventually } from './support/eventually';
import { HubApi } from './support/hub-api';
import { defaultFleetTiming, type HubFleet } from './support/hub-fleet';
import { projectRepository, publishProject, publishWebapp } from './support/publish';
import { runs, target, type TargetView } from './support/shop';
import { DeploymentReadiness, describeWorkloads } from './support/spoke';
import { spokeSuite } from './support/suite';

// Issue 39: one rollout over an agent cluster and a push cluster, under the
// same rules. The compiled hub applies to the harness API server as the push
// cluster `stage-1`; the compiled agent `edge-1` runs against the same API
// server and is the canary wave. Each cluster's instances go to a namespace
// of its own, where the API server's controllers and kwok make the webapp's
// Deployment available (or never, with an image that cannot be pulled).

jest.setTimeout(360_000);

const [, imageRepository, imageTag] = /^(.*):([^:]+)$/.exec(UNPULLABLE_IMAGE)!;

describe('a rollout over agent and push clusters', () => {
  let fleet: HubFleet;
  const { registry, kube, ns, beforeStop } = spokeSuite('e2e-mixed', {
    started: (f) => (fleet = f),
    instanceNamespaces: (n) => [`${n}-stage-1`, `${n}-edge-1`],
    spokes: [['stage-1', 'staging']],
    // a wave is done once its Deployment is available: seen within 3 s, not the default 30
    timing: { ...defaultFleetTiming(), healthRecheck: '3s' },
    // the agents' port is in the install manifest: free, and fixed before the hub starts
    env: async () => ({ FLOTILLA_AGENT_PORT: String(await freePort()) }),
  });
  let agent: ConnectedAgent | undefined;
  let repo: string;
  let base: ShopRevision;
  let operator: string;

  const condition = (t: TargetView, type: string) => t.conditions.find((c) => c.type === type)?.status;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const rollout = async (): Promise<any> => (await fleet.expectCall(200, 'GET', '/api/v1/projects/shop/rollout')).body;
  const publish = async (message: string, extra: Partial<ShopRevision> = {}) => `latest@${await publishProject(registry, repo, shopProjectFiles({ ...base, message, ...extra }))}`;
  const revisionsRun = async (cluster: string) => (await runs(fleet, 'shop', cluster)).map((r) => r.revision);

  function healthyOn(cluster: string, revision: string): Promise<TargetView> {
    return eventually(
      `${cluster} Ready and Healthy on ${revision}`,
      async () => {
        const t = await target(fleet, 'shop', cluster);
        return t.lastAppliedRevision === revision && condition(t, 'Ready') === 'True' && condition(t, 'Healthy') === 'True' ? t : undefined;
      },
      {
        timeoutMs: 150_000,
        observe: async () => ({
          target: await target(fleet, 'shop', cluster),
          rollout: await rollout(),
          agent: agent?.process.output().split('\n').slice(-15),
          workloads: await describeWorkloads(kube, `${ns}-${cluster}`),
        }),
      },
    );
  }

  function waveStates(expected: string[], what: string): Promise<unknown> {
    return eventually(what, async () => {
      const view = await rollout();
      return JSON.stringify(view.waves.map((w: { state: string }) => w.state)) === JSON.stringify(expected) ? view : undefined;
    }, { timeoutMs: 150_000, observe: rollout });
  }

  beforeAll(async () => {
    await installAgent(kube);
    const readiness = new DeploymentReadiness(kube, () => [`${ns}-stage-1`, `${ns}-edge-1`], 0).start();
    beforeStop(() => readiness.stop());
    beforeStop(() => void agent?.process.stop());
    base = { moduleUrl: await publishWebapp(registry), moduleVersion: '1.0.0', namespace: `${ns}-\\(_cluster)`, infra: ['db'], message: '' };
    repo = projectRepository();
    agent = await startConnectedAgent(new HubApi(fleet.hubs[0], fleet.adminToken), kube, { cluster: 'edge-1', group: 'edge', namespace: ns, healthRecheck: '3s' });
    operator = (await fleet.expectCall(201, 'POST', '/api/v1/tokens', { name: 'release-manager', role: 'operator' })).body.token as string;
  });

  it('moves the agent canary first, the push wave only once approved, rolls the canary back by itself when a revision never becomes healthy, and holds a new revision inside a deny window', () =>
    fleet.guard(async () => {
      const v1 = await publish('v1');
      await fleet.expectCall(201, 'POST', '/api/v1/projects', {
        name: 'shop',
        namespace: ns,
        serviceAccountName: 'deployer',
        source: { repository: repo, tag: 'latest' },
        targets: { groups: ['edge', 'staging'] },
        rollout: { waves: [{ group: 'edge', progressDeadline: '45s' }, { group: 'staging', approval: true }], onFailure: 'rollback' },
        interval: '10m',
      });

      // the agent's wave goes first and is healthy on v1; the push wave waits for approval and has not run
      await healthyOn('edge-1', v1);
      const awaiting = await waveStates(['done', 'awaitingApproval', 'waiting'], 'the staging wave awaiting approval');
      expect(awaiting).toMatchObject({ revision: v1, waves: [{ groups: ['edge'], counts: { total: 1, healthy: 1 } }, { groups: ['staging'], counts: { total: 1, pending: 1 } }, { groups: [] }] });
      expect(await revisionsRun('stage-1')).not.toContain(v1);

      // an operator approves: the push wave takes v1, and the approval names who gave it
      const approved = await adminCall(await fleet.hubs[0].url, operator, 'POST', '/api/v1/projects/shop/rollout/approve', {});
      expect(approved.status).toBe(200);
      expect(approved.body.actions).toEqual([expect.objectContaining({ action: 'approve', revision: v1, wave: 1, by: 'release-manager' })]);
      await healthyOn('stage-1', v1);
      await waveStates(['done', 'done', 'done'], 'every wave done on v1');

      // v2's Deployment never becomes available: the agent applies it, and past the
      // progress deadline the canary wave fails and goes back to v1 on its own
      const v2 = await publish('v2', { extraWebValues: `image: {repository: "${imageRepository}", tag: "${imageTag}"}` });
      await eventually('edge-1 applied v2 and is not healthy', async () => {
        const t = await target(fleet, 'shop', 'edge-1');
        return t.lastAppliedRevision === v2 && condition(t, 'Healthy') === 'False' ? t : undefined;
      }, { timeoutMs: 150_000, observe: async () => target(fleet, 'shop', 'edge-1') });
      const back = await healthyOn('edge-1', v1);
      expect(back.lastAppliedRevision).toBe(v1);
      const view = await rollout();
      expect(view.rolledBack).toEqual({ revision: v2, wave: 0, by: 'flotilla (automatic: past the failure budget)', at: expect.any(String) });
      expect(view.waves.map((w: { state: string }) => w.state)).toEqual(['rolledBack', 'waiting', 'waiting']);
      // the push wave never saw v2, and stays on v1
      expect(await revisionsRun('stage-1')).not.toContain(v2);
      expect((await target(fleet, 'shop', 'stage-1')).lastAppliedRevision).toBe(v1);

      // inside a deny window a new revision starts nowhere, and drift correction goes on
      const waves = [{ group: 'edge', progressDeadline: '45s' }, { group: 'staging', approval: true }];
      const deny = { kind: 'deny', schedule: '0 0 * * *', duration: '24h' };
      await fleet.expectCall(200, 'PATCH', '/api/v1/projects/shop', { rollout: { waves, onFailure: 'rollback', windows: [deny] } });
      const v3 = await publish('v3');
      const closed = await eventually('v3 held by the deny window', async () => {
        const r = await rollout();
        return r.revision === v3 && r.windowClosed ? r : undefined;
      }, { timeoutMs: 60_000, observe: rollout });
      expect(closed.windowClosed).toBe('inside the deny window deny "0 0 * * *" for 24h (UTC)');
      const edgeConfig = { apiVersion: 'v1', kind: 'ConfigMap', namespace: `${ns}-edge-1`, name: 'web-config' };
      await kube.delete(edgeConfig);
      await fleet.expectCall(202, 'POST', '/api/v1/projects/shop/reconcile?cluster=edge-1');
      const restored = await eventually('the agent restores web-config on v1', async () => (await kube.getOptional(edgeConfig)) ?? undefined, { timeoutMs: 60_000, observe: () => target(fleet, 'shop', 'edge-1') });
      expect(restored.data).toEqual({ message: 'v1', cluster: 'edge-1' });
      const held = await eventually('edge-1 saying what holds v3', async () => {
        const t = await target(fleet, 'shop', 'edge-1');
        return t.conditions.find((c) => c.reason === 'RolloutWaiting' && c.message.includes(v3)) ? t : undefined;
      }, { timeoutMs: 60_000, observe: () => target(fleet, 'shop', 'edge-1') });
      expect(held.lastAppliedRevision).toBe(v1);
      expect(held.conditions.find((c) => c.reason === 'RolloutWaiting')?.message).toContain('inside the deny window');
      expect(await revisionsRun('edge-1')).not.toContain(v3);
      expect(await revisionsRun('stage-1')).not.toContain(v3);

      // without the window, v3 goes out as usual
      await fleet.expectCall(200, 'PATCH', '/api/v1/projects/shop', { rollout: { waves, onFailure: 'rollback' } });
      await healthyOn('edge-1', v3);
      await waveStates(['done', 'awaitingApproval', 'waiting'], 'v3 awaiting approval for staging');
    })());
});
