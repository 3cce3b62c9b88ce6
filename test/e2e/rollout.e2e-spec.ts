import { shopProjectFiles, type ShopRevision } from './fixtures/projects';
import { eventually } from './support/eventually';
import { defaultFleetTiming, type HubFleet } from './support/hub-fleet';
import { projectRepository, publishProject, publishWebapp } from './support/publish';
import { configMapData, createProject, readyOn, runs, target, type RunView } from './support/shop';
import { DeploymentReadiness } from './support/spoke';
import { spokeSuite } from './support/suite';

// Issue 8, fourth end-to-end suite: rollout waves. The harness API server is
// registered twice, as `stage-1` (group staging) and `prod-1` (group
// production); the Project places each cluster's instances in a namespace
// named after TIMONI_CLUSTER_NAME, so the two registrations stand in for two
// clusters. The Project's service account only has Roles, so neither Target
// can see (or prune) the other's instances. A wave opens once the one before
// is Ready and Healthy: the suite releases the webapp's pods (DeploymentReadiness)
// so its Deployments become available; the hub looks at an unhealthy Target
// again within 3 s (its default is 30 s), so each wave waits that long.

jest.setTimeout(120_000);

describe('rollout waves over two groups of clusters', () => {
  let fleet: HubFleet;
  const { registry, kube, ns, beforeStop } = spokeSuite('e2e-wave', {
    started: (f) => (fleet = f),
    instanceNamespaces: (n) => [`${n}-stage-1`, `${n}-prod-1`],
    spokes: [['stage-1', 'staging'], ['prod-1', 'production']],
    timing: { ...defaultFleetTiming(), healthRecheck: '3s' },
  });
  const stageNs = `${ns}-stage-1`;
  const prodNs = `${ns}-prod-1`;
  let repo: string;
  let base: ShopRevision;

  const publish = async (message: string, extra: Partial<ShopRevision> = {}) => `latest@${await publishProject(registry, repo, shopProjectFiles({ ...base, message, ...extra }))}`;
  const succeededOn = (rs: RunView[], revision: string) => rs.filter((r) => r.result === 'Succeeded' && r.revision === revision);
  const rbacBinding = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', namespace: stageNs, name: 'flotilla-deployer' };

  beforeAll(async () => {
    const moduleUrl = await publishWebapp(registry);
    repo = projectRepository();
    base = { moduleUrl, moduleVersion: '1.0.0', namespace: `${ns}-\\(_cluster)`, infra: ['db'], message: '' };
    const readiness = new DeploymentReadiness(kube, () => [stageNs, prodNs], 0).start();
    beforeStop(() => readiness.stop());
  });

  it('rolls a revision out to production only after staging is Ready and Healthy on it', () =>
    fleet.guard(async () => {
      const v1 = await publish('v1');
      await createProject(fleet, { name: 'shop', namespace: ns, repository: repo }, {
        targets: { groups: ['staging', 'production'] },
        rollout: { groups: ['staging', 'production'] },
        interval: '10m',
      });
      await readyOn(fleet, 'shop', 'stage-1', v1);
      await readyOn(fleet, 'shop', 'prod-1', v1, 90_000);

      const [stageDone] = succeededOn(await runs(fleet, 'shop', 'stage-1'), v1);
      const prodRuns = await runs(fleet, 'shop', 'prod-1');
      expect(prodRuns.length).toBeGreaterThan(0);
      // prod-1 never ran before staging was done
      for (const r of prodRuns) expect(Date.parse(r.startedAt)).toBeGreaterThanOrEqual(Date.parse(stageDone.finishedAt!));
      expect((await configMapData(kube, stageNs))['web-config']).toEqual({ message: 'v1', cluster: 'stage-1' });
      expect((await configMapData(kube, prodNs))['web-config']).toEqual({ message: 'v1', cluster: 'prod-1' });
    })());

  it('halts production while the revision fails in staging, and continues once a newer revision fixes it', () =>
    fleet.guard(async () => {
      const v1 = (await target(fleet, 'shop', 'prod-1')).lastAppliedRevision!;
      const broken = await publish('v2', { replicas: -1 });
      await eventually(
        'the broken revision to fail twice in staging',
        async () => ((await target(fleet, 'shop', 'stage-1')).attempt >= 2 ? true : undefined),
        { timeoutMs: 30_000, observe: () => target(fleet, 'shop', 'stage-1') },
      );
      // Held back, production may still correct drift, on the revision it has.
      expect((await fleet.expectCall(202, 'POST', '/api/v1/projects/shop/reconcile?cluster=prod-1')).body).toMatchObject({ requested: 1, sourceError: null });
      const manual = await eventually(
        'the manual run in production',
        async () => (await runs(fleet, 'shop', 'prod-1')).find((r) => r.trigger === 'Manual' && r.result !== 'Running'),
        { timeoutMs: 20_000, observe: () => runs(fleet, 'shop', 'prod-1') },
      );
      expect(manual).toMatchObject({ result: 'Succeeded', revision: v1 });
      const prod = await target(fleet, 'shop', 'prod-1');
      expect(prod).toMatchObject({ phase: 'Ready', lastAppliedRevision: v1 });
      // and says what holds it back, as does an event for it and one for the Project
      expect(prod.conditions.find((c) => c.type === 'Reconciling')).toMatchObject({
        status: 'True',
        reason: 'RolloutWaiting',
        message: `revision ${broken} waits for group staging to recover: 1 of 1 Target(s) failed, 0 allowed; correcting drift on ${v1} meanwhile`,
      });
      const events = (await fleet.expectCall(200, 'GET', '/api/v1/projects/shop/events?limit=200')).body.items as Array<{ cluster: string | null; reason: string; message: string }>;
      expect(events).toEqual(expect.arrayContaining([
        expect.objectContaining({ cluster: 'prod-1', reason: 'RolloutWaiting', message: `revision ${broken} waits for group staging to recover: 1 of 1 Target(s) failed, 0 allowed` }),
        expect.objectContaining({ cluster: null, reason: 'RolloutWaiting', message: `revision ${broken} waits in group production for group staging to be Ready and Healthy on it` }),
      ]));
      expect(events.filter((e) => e.cluster === 'prod-1' && e.reason === 'RolloutWaiting' && e.message.includes(broken))).toHaveLength(1);
      // the Project's own status says it too, in the words of its event
      expect((await fleet.expectCall(200, 'GET', '/api/v1/projects/shop')).body.status.conditions).toEqual([
        expect.objectContaining({ type: 'Reconciling', status: 'True', reason: 'RolloutWaiting', message: `revision ${broken} waits in group production for group staging to recover: 1 of 1 Target(s) failed, 0 allowed` }),
      ]);
      expect((await runs(fleet, 'shop', 'prod-1')).filter((r) => r.revision === broken)).toEqual([]);
      expect((await configMapData(kube, prodNs))['web-config']).toEqual({ message: 'v1', cluster: 'prod-1' });

      const v3 = await publish('v3');
      await readyOn(fleet, 'shop', 'stage-1', v3);
      await readyOn(fleet, 'shop', 'prod-1', v3, 90_000);
      expect((await fleet.expectCall(200, 'GET', '/api/v1/projects/shop')).body.status.conditions).toEqual([]);
      const [stageDone] = succeededOn(await runs(fleet, 'shop', 'stage-1'), v3);
      const [prodDone] = succeededOn(await runs(fleet, 'shop', 'prod-1'), v3);
      expect(Date.parse(prodDone.startedAt)).toBeGreaterThanOrEqual(Date.parse(stageDone.finishedAt!));
      expect((await runs(fleet, 'shop', 'prod-1')).filter((r) => r.revision === broken)).toEqual([]);
      expect((await configMapData(kube, prodNs))['web-config']).toEqual({ message: 'v3', cluster: 'prod-1' });
    })());

  it('halts production while staging fails, and continues by itself once a retry in staging succeeds', () =>
    fleet.guard(async () => {
      const v3 = (await target(fleet, 'shop', 'prod-1')).lastAppliedRevision!;
      // Someone revokes the Project's rights in the staging namespace.
      await kube.delete(rbacBinding);
      const v4 = await publish('v4');
      const failed = await eventually(
        'v4 to fail in staging',
        async () => {
          const t = await target(fleet, 'shop', 'stage-1');
          return t.phase === 'Failed' && t.attempt >= 1 ? t : undefined;
        },
        { timeoutMs: 30_000, observe: () => target(fleet, 'shop', 'stage-1') },
      );
      expect(failed.conditions.find((c) => c.type === 'Ready')!.message).toMatch(/forbidden/i);
      expect(failed.conditions.find((c) => c.type === 'Reconciling')).toMatchObject({ reason: 'ProgressingWithRetry' });
      expect((await target(fleet, 'shop', 'prod-1')).lastAppliedRevision).toBe(v3);

      // The rights come back; the next retry succeeds and production follows without anything else.
      await kube.apply(
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: rbacBinding.name, namespace: stageNs },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'flotilla-deployer' },
          subjects: [{ kind: 'ServiceAccount', name: 'deployer', namespace: ns }],
        },
        { dryRun: false, force: true, fieldManager: 'flotilla-e2e' },
      );
      await readyOn(fleet, 'shop', 'stage-1', v4, 30_000);
      const [stageDone] = succeededOn(await runs(fleet, 'shop', 'stage-1'), v4);
      expect(stageDone.trigger).toBe('Retry');
      await readyOn(fleet, 'shop', 'prod-1', v4, 90_000);
      const [prodDone] = succeededOn(await runs(fleet, 'shop', 'prod-1'), v4);
      expect(Date.parse(prodDone.startedAt)).toBeGreaterThanOrEqual(Date.parse(stageDone.finishedAt!));
      expect((await configMapData(kube, prodNs))['web-config']).toEqual({ message: 'v4', cluster: 'prod-1' });
    })());
});
