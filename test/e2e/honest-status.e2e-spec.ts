import { shopProjectFiles } from './fixtures/projects';
import type { HubFleet } from './support/hub-fleet';
import { projectRepository, publishProject, publishWebapp } from './support/publish';
import { eventually } from './support/eventually';
import { createProject, instanceInfo, readyOn, target, type TargetView } from './support/shop';
import { DeploymentReadiness } from './support/spoke';
import { spokeSuite } from './support/suite';

// Health is assessed after every apply, waited for or not (issue 16, item 4):
// a component without `wait` does not make its dependents wait, but neither
// the Target, nor its instances, nor timoni_instance_info say ready while a
// Deployment is still InProgress. The harness has no controller-manager, so
// Deployments stay InProgress until DeploymentReadiness marks them available.

jest.setTimeout(90_000);

type Instance = { name: string; ready: boolean; notReady?: string[] };
const healthy = (t: TargetView) => t.conditions.find((c) => c.type === 'Healthy');
const instances = (t: TargetView) => t.components.flatMap((c) => c.instances as Instance[]);
const readyLabels = async (fleet: HubFleet) => Object.fromEntries(instanceInfo((await fleet.expectCall(200, 'GET', '/metrics')).text).map((i) => [i.labels.instance_name, i.labels.ready]));

describe('honest status after an apply without wait', () => {
  let fleet: HubFleet;
  const { registry, kube, ns, beforeStop } = spokeSuite('e2e-honest', { started: (f) => (fleet = f) });
  let readiness: DeploymentReadiness | undefined;
  beforeStop(() => readiness?.stop());

  it('says Healthy=False naming the InProgress Deployments, and Healthy once they are available', () =>
    fleet.guard(async () => {
      const moduleUrl = await publishWebapp(registry);
      const repo = projectRepository();
      const revision = `latest@${await publishProject(registry, repo, shopProjectFiles({ moduleUrl, moduleVersion: '1.0.0', namespace: ns, infra: ['db'], message: 'hi' }))}`;
      await createProject(fleet, { name: 'honest', namespace: ns, repository: repo });

      const applied = await readyOn(fleet, 'honest', 'spoke-1', revision);
      expect(healthy(applied)).toMatchObject({ status: 'False', reason: 'Progressing' });
      expect(healthy(applied)?.message).toMatch(new RegExp(`^2 object\\(s\\) not healthy yet: Deployment/${ns}/(db|web) InProgress`));
      expect(applied.conditions.find((c) => c.type === 'Ready')?.message).toContain('not healthy yet');
      for (const i of instances(applied)) {
        expect(i.ready).toBe(false);
        expect(i.notReady).toEqual([expect.stringMatching(new RegExp(`^Deployment/${ns}/${i.name} InProgress`))]);
      }
      expect(await readyLabels(fleet)).toEqual({ db: 'false', web: 'false' });
      // an unhealthy result is looked at again soon, not only after the 10 m interval
      expect(Date.parse(applied.nextRunAt) - Date.now()).toBeLessThanOrEqual(30_000);

      readiness = new DeploymentReadiness(kube, () => [ns], 0).start();
      await eventually('both Deployments to be marked available', async () => (readiness!.marked.length >= 2 ? true : undefined), { timeoutMs: 20_000 });
      await fleet.expectCall(202, 'POST', '/api/v1/projects/honest/reconcile');
      const now = await eventually(
        'the Target to be Healthy',
        async () => {
          const t = await target(fleet, 'honest', 'spoke-1');
          return t.phase === 'Ready' && healthy(t)?.status === 'True' ? t : undefined;
        },
        { timeoutMs: 30_000, observe: () => target(fleet, 'honest', 'spoke-1') },
      );
      expect(healthy(now)).toMatchObject({ reason: 'HealthCheckSucceeded', message: 'every applied object is healthy' });
      expect(instances(now).map((i) => [i.name, i.ready, i.notReady])).toEqual(expect.arrayContaining([['db', true, undefined], ['web', true, undefined]]));
      expect(await readyLabels(fleet)).toEqual({ db: 'true', web: 'true' });
    })());
});
