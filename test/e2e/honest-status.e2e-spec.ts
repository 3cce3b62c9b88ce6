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
// Deployment is still InProgress. The module's pods stay not Ready (a
// readiness gate) until DeploymentReadiness releases them.

jest.setTimeout(90_000);

type Instance = { name: string; ready: boolean; notReady?: string[] };
const healthy = (t: TargetView) => t.conditions.find((c) => c.type === 'Healthy');
const instances = (t: TargetView) => t.components.flatMap((c) => c.instances as Instance[]);
const readyLabels = async (fleet: HubFleet) => Object.fromEntries(instanceInfo((await fleet.expectCall(200, 'GET', '/metrics')).text).map((i) => [i.labels.instance_name, i.labels.ready]));

describe('honest status after an apply without wait', () => {
  let fleet: HubFleet;
  const { registry, kube, ns, beforeStop } = spokeSuite('e2e-honest', { instanceNamespaces: (n) => [n, `${n}-wait`], started: (f) => (fleet = f) });
  const readiness: DeploymentReadiness[] = [];
  beforeStop(() => readiness.forEach((r) => r.stop()));

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

      const marking = new DeploymentReadiness(kube, () => [ns], 0).start();
      readiness.push(marking);
      await eventually('both Deployments to be marked available', async () => (marking.marked.length >= 2 ? true : undefined), { timeoutMs: 20_000 });
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

  it('shows the run in progress and what a waiting component waits for, not the previous run’s failure', () =>
    fleet.guard(async () => {
      const namespace = `${ns}-wait`;
      const moduleUrl = await publishWebapp(registry);
      const repo = projectRepository();
      const files = shopProjectFiles({ moduleUrl, moduleVersion: '1.0.0', namespace, infra: ['db'], message: 'hi', infraWait: true, infraTimeout: '5s' });
      const revision = `latest@${await publishProject(registry, repo, files)}`;
      await createProject(fleet, { name: 'patient', namespace: ns, repository: repo });
      const observe = () => target(fleet, 'patient', 'spoke-1');
      const reconciling = (t: TargetView) => t.conditions.find((c) => c.type === 'Reconciling');
      const waitingNow = (t: TargetView) => t.phase === 'Reconciling' && (reconciling(t)?.message ?? '').includes('component infra waits for');

      const first = await eventually('the first run to wait for infra', async () => {
        const t = await observe();
        return waitingNow(t) ? t : undefined;
      }, { timeoutMs: 30_000, observe });
      expect(reconciling(first)?.message).toMatch(new RegExp(`^revision ${revision}: component infra waits for instance ${namespace}/db to be healthy \\(.*Deployment/${namespace}/db.*\\); at most \\d+ s left$`));
      expect(first.components).toEqual([expect.objectContaining({ name: 'infra', status: 'Running', waitingFor: expect.arrayContaining([`Deployment/${namespace}/db`]) })]);

      // no controller makes db available: the first run times out
      await eventually('the first run to time out', async () => {
        const t = await observe();
        return t.conditions.some((c) => c.type === 'Ready' && c.reason === 'ComponentTimeout') ? t : undefined;
      }, { timeoutMs: 30_000, observe });

      // the retry waits again: the Target shows that, not the timeout of the run before
      const retry = await eventually('the retry to wait for infra', async () => {
        const t = await observe();
        return waitingNow(t) ? t : undefined;
      }, { timeoutMs: 30_000, observe });
      const ready = retry.conditions.find((c) => c.type === 'Ready')!;
      expect(ready).toMatchObject({ status: 'Unknown', reason: 'Progressing' });
      expect(ready.message).toContain('component infra waits for');
      expect(retry.components.map((c) => c.status)).toEqual(['Running']);

      readiness.push(new DeploymentReadiness(kube, () => [namespace], 0).start());
      const done = await readyOn(fleet, 'patient', 'spoke-1', revision, 60_000);
      expect(done.components.map((c) => [c.name, c.status, (c as { waitingFor?: string[] }).waitingFor])).toEqual([['infra', 'Succeeded', undefined], ['app', 'Succeeded', undefined]]);
    })());
});
