import { shopProjectFiles, type ShopRevision } from './fixtures/projects';
import { eventually } from './support/eventually';
import type { HubFleet } from './support/hub-fleet';
import { projectRepository, publishProject, publishWebapp } from './support/publish';
import { configMapData, createProject, deploymentNames, instanceInfo, readyOn, runs, target, type TargetView } from './support/shop';
import { spokeSuite } from './support/suite';

// Issue 8, second end-to-end suite: new revisions pushed under the same tag
// are detected and applied, an instance that left the bundle is pruned, and a
// broken revision leaves the last good objects in place, says why, and is
// retried with backoff until a fixed revision arrives.

jest.setTimeout(90_000);

describe('push mode: revisions under one tag', () => {
  let fleet: HubFleet;
  const { registry, kube, ns } = spokeSuite('e2e-rev', { started: (f) => (fleet = f) });
  let repo: string;
  let base: ShopRevision;
  const revisions: string[] = [];

  const publish = async (rev: ShopRevision) => {
    const revision = `latest@${await publishProject(registry, repo, shopProjectFiles(rev))}`;
    revisions.push(revision);
    return revision;
  };

  beforeAll(async () => {
    const moduleUrl = await publishWebapp(registry);
    repo = projectRepository();
    base = { moduleUrl, moduleVersion: '1.0.0', namespace: ns, infra: ['db', 'cache'], message: 'welcome' };
    const first = await publish(base);
    await createProject(fleet, { name: 'shop', namespace: ns, repository: repo }, {
      interval: '10m',
    });
    await readyOn(fleet, 'shop', 'spoke-1', first);
  });

  it('detects a new digest behind the tag, applies it and prunes the instance that left the bundle', () =>
    fleet.guard(async () => {
      const revision = await publish({ ...base, infra: ['db'], message: 'welcome back' });
      await readyOn(fleet, 'shop', 'spoke-1', revision);

      expect(await configMapData(kube, ns)).toEqual({
        'db-config': { message: 'db of the shop', cluster: 'spoke-1' },
        'web-config': { message: 'welcome back', cluster: 'spoke-1' },
      });
      expect(await deploymentNames(kube, ns)).toEqual(['db', 'web']);
      expect(await kube.getOptional({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'timoni.cache' })).toBeUndefined();

      const [run] = await runs(fleet, 'shop', 'spoke-1');
      expect(run).toMatchObject({ trigger: 'NewRevision', result: 'Succeeded', revision });
      const counts = Object.fromEntries(run.instances.map((i) => [`${i.component}/${i.name}:${i.action}`, { created: i.counts.created, configured: i.counts.configured, unchanged: i.counts.unchanged, deleted: i.counts.deleted }]));
      expect(counts).toEqual({
        'infra/db:applied': { created: 0, configured: 0, unchanged: 2, deleted: 0 },
        'infra/cache:pruned': { created: 0, configured: 0, unchanged: 0, deleted: 2 },
        'app/web:applied': { created: 0, configured: 1, unchanged: 1, deleted: 0 },
      });

      // The pruned instance leaves timoni_instance_info; the others carry the new revision only.
      const info = instanceInfo((await fleet.expectCall(200, 'GET', '/metrics')).text);
      expect(info.map((i) => `${i.labels.instance_name}@${i.labels.project_revison}`).sort()).toEqual([`db@${revision}`, `web@${revision}`]);
    })());

  it('keeps the last good objects when a revision is broken, shows the error and retries with backoff', () =>
    fleet.guard(async () => {
      const good = revisions[revisions.length - 1];
      const broken = await publish({ ...base, infra: ['db'], message: 'broken', replicas: -1 });

      const failedOnce = await eventually(
        'the broken revision to fail',
        async () => {
          const t = await target(fleet, 'shop', 'spoke-1');
          return t.phase === 'Failed' && t.attempt === 1 ? t : undefined;
        },
        { timeoutMs: 30_000, observe: () => target(fleet, 'shop', 'spoke-1') },
      );
      // Still on the good revision, and saying exactly what the API server refused.
      expect(failedOnce.lastAppliedRevision).toBe(good);
      const ready = failedOnce.conditions.find((c) => c.type === 'Ready')!;
      expect(ready).toMatchObject({ status: 'False', reason: 'ApplyFailed' });
      expect(ready.message).toMatch(/Deployment/);
      expect(ready.message).toMatch(/web/);
      expect(ready.message).toMatch(/replicas/);
      expect(failedOnce.conditions.find((c) => c.type === 'Reconciling')).toMatchObject({ status: 'True', reason: 'ProgressingWithRetry' });

      const [firstFailure] = await runs(fleet, 'shop', 'spoke-1');
      expect(firstFailure).toMatchObject({ result: 'Failed', revision: broken, trigger: 'NewRevision' });
      expect(firstFailure.error).toMatch(/replicas/);
      const firstDelay = Date.parse(failedOnce.nextRunAt) - Date.parse(firstFailure.finishedAt!);
      expect(firstDelay).toBeGreaterThanOrEqual(4000 - 50); // 5 s ± 20 % jitter
      expect(firstDelay).toBeLessThanOrEqual(6000 + 50);

      // The last good objects stay as they were: the dry run refused the revision before anything changed.
      expect((await configMapData(kube, ns))['web-config']).toEqual({ message: 'welcome back', cluster: 'spoke-1' });
      const web = await kube.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'web' });
      expect((web.spec as { replicas: number }).replicas).toBe(1);

      // The retry comes when nextRunAt said, and backs off further.
      const failedTwice: TargetView = await eventually(
        'the second attempt',
        async () => {
          const t = await target(fleet, 'shop', 'spoke-1');
          return t.attempt === 2 ? t : undefined;
        },
        { timeoutMs: 20_000, observe: () => target(fleet, 'shop', 'spoke-1') },
      );
      const [retry] = await runs(fleet, 'shop', 'spoke-1');
      expect(retry).toMatchObject({ result: 'Failed', revision: broken, trigger: 'Retry' });
      expect(Date.parse(retry.startedAt)).toBeGreaterThanOrEqual(Date.parse(failedOnce.nextRunAt) - 50);
      const secondDelay = Date.parse(failedTwice.nextRunAt) - Date.parse(retry.finishedAt!);
      expect(secondDelay).toBeGreaterThanOrEqual(8000 - 50); // 10 s ± 20 %
      expect(secondDelay).toBeLessThanOrEqual(12000 + 50);
      expect(failedTwice.lastAppliedRevision).toBe(good);

      const warnings = ((await fleet.expectCall(200, 'GET', '/api/v1/projects/shop/events?limit=100')).body as { items: Array<{ type: string; reason: string; message: string }> }).items;
      expect(warnings.some((e) => e.type === 'Warning' && e.reason === 'ApplyFailed' && /replicas/.test(e.message))).toBe(true);

      // A fixed revision is picked up during the backoff and clears it.
      const fixed = await publish({ ...base, infra: ['db'], message: 'fixed' });
      const recovered = await readyOn(fleet, 'shop', 'spoke-1', fixed, 20_000);
      expect(recovered.attempt).toBe(0);
      expect(recovered.conditions.find((c) => c.type === 'Reconciling')).toBeUndefined();
      expect((await configMapData(kube, ns))['web-config']).toEqual({ message: 'fixed', cluster: 'spoke-1' });
    })());

  it('marks a revision that does not build Stalled, names the field, and still retries it on the backoff', () =>
    fleet.guard(async () => {
      const good = revisions[revisions.length - 1];
      const typo = await publish({ ...base, infra: ['db'], message: 'typo', extraWebValues: 'replica: 2' });
      const stalled = await eventually(
        'the typo to stall',
        async () => {
          const t = await target(fleet, 'shop', 'spoke-1');
          return t.phase === 'Failed' && t.conditions.some((c) => c.type === 'Stalled') ? t : undefined;
        },
        { timeoutMs: 30_000, observe: () => target(fleet, 'shop', 'spoke-1') },
      );
      expect(stalled.lastAppliedRevision).toBe(good);
      const ready = stalled.conditions.find((c) => c.type === 'Ready')!;
      expect(ready).toMatchObject({ status: 'False', reason: 'BuildFailed' });
      expect(ready.message).toMatch(/replica/);
      expect(ready.message).toMatch(/not allowed/);
      expect(stalled.conditions.find((c) => c.type === 'Stalled')).toMatchObject({ status: 'True', reason: 'BuildFailed' });
      const [run] = await runs(fleet, 'shop', 'spoke-1');
      expect(run).toMatchObject({ result: 'Failed', revision: typo });
      expect(Date.parse(stalled.nextRunAt) - Date.parse(run.finishedAt!)).toBeLessThanOrEqual(6000 + 50);

      const again = await eventually(
        'the stalled revision to be retried',
        async () => {
          const t = await target(fleet, 'shop', 'spoke-1');
          return t.attempt === 2 ? t : undefined;
        },
        { timeoutMs: 20_000, observe: () => target(fleet, 'shop', 'spoke-1') },
      );
      expect(again.conditions.find((c) => c.type === 'Stalled')).toMatchObject({ status: 'True' });
      expect((await runs(fleet, 'shop', 'spoke-1'))[0]).toMatchObject({ trigger: 'Retry', result: 'Failed', revision: typo });
      // nothing of the typo reached the cluster
      expect((await configMapData(kube, ns))['web-config']).toEqual({ message: 'fixed', cluster: 'spoke-1' });
    })());
});
