import { shopProjectFiles } from './fixtures/projects';
import { eventually } from './support/eventually';
import type { HubFleet } from './support/hub-fleet';
import { projectRepository, publishProject, publishWebapp } from './support/publish';
import { configMapData, createProject, readyOn, runs, target } from './support/shop';
import { spokeSuite } from './support/suite';

// The scheduler's other triggers end to end (issue 8): a spec change
// (generation), the interval (drift correction), suspend and resume.

jest.setTimeout(90_000);

const INTERVAL_S = 10; // the API's minimum

describe('push mode: spec changes, drift correction, suspend and resume', () => {
  let fleet: HubFleet;
  const { registry, kube, ns } = spokeSuite('e2e-trig', { started: (f) => (fleet = f) });
  const webConfig = { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'web-config' };
  let revision: string;

  beforeAll(async () => {
    const moduleUrl = await publishWebapp(registry);
    const repo = projectRepository();
    revision = `latest@${await publishProject(registry, repo, shopProjectFiles({ moduleUrl, moduleVersion: '1.0.0', namespace: ns, infra: ['db'], message: '', messageFromRuntime: 'GREETING' }))}`;
    await createProject(fleet, { name: 'shop', namespace: ns, repository: repo }, {
      interval: `${INTERVAL_S}s`,
      annotations: { 'runtime.timoni.sh/GREETING': 'hello' },
    });
    await readyOn(fleet, 'shop', 'spoke-1', revision);
  });

  it('runs again when the spec changes, with the new runtime annotation', () =>
    fleet.guard(async () => {
      expect((await configMapData(kube, ns))['web-config']).toEqual({ message: 'hello', cluster: 'spoke-1' });
      const patched = await fleet.expectCall(200, 'PATCH', '/api/v1/projects/shop', { annotations: { 'runtime.timoni.sh/GREETING': 'hola' } });
      expect(patched.body.generation).toBe(2);
      await eventually(
        'observedGeneration 2',
        async () => {
          const t = await target(fleet, 'shop', 'spoke-1');
          return t.phase === 'Ready' && t.observedGeneration === 2 ? t : undefined;
        },
        { timeoutMs: 20_000, observe: () => target(fleet, 'shop', 'spoke-1') },
      );
      const [run] = await runs(fleet, 'shop', 'spoke-1');
      expect(run).toMatchObject({ trigger: 'SpecChanged', result: 'Succeeded', revision });
      expect((await configMapData(kube, ns))['web-config']).toEqual({ message: 'hola', cluster: 'spoke-1' });
    })());

  it('corrects drift at the interval', () =>
    fleet.guard(async () => {
      const before = (await runs(fleet, 'shop', 'spoke-1')).length;
      await kube.delete(webConfig);
      const restored = await eventually('web-config to be restored', async () => (await kube.getOptional(webConfig)) ?? undefined, {
        timeoutMs: (INTERVAL_S + 8) * 1000,
        observe: () => target(fleet, 'shop', 'spoke-1'),
      });
      expect(restored.data).toEqual({ message: 'hola', cluster: 'spoke-1' });
      // the object is back before the run that restored it has finished
      const all = await eventually('the interval run to finish', async () => {
        const list = await runs(fleet, 'shop', 'spoke-1');
        return list.length > before && list[0].result !== 'Running' ? list : undefined;
      }, { timeoutMs: 20_000, observe: () => target(fleet, 'shop', 'spoke-1') });
      expect(all.length).toBe(before + 1);
      expect(all[0]).toMatchObject({ trigger: 'Interval', result: 'Succeeded', revision });
      expect(all[0].instances.find((i) => i.name === 'web')?.counts).toMatchObject({ created: 1, unchanged: 1 });
    })());

  it('does nothing while suspended, and catches up on resume', () =>
    fleet.guard(async () => {
      expect((await fleet.expectCall(200, 'POST', '/api/v1/projects/shop/suspend')).body.suspend).toBe(true);
      expect((await target(fleet, 'shop', 'spoke-1')).phase).toBe('Suspended');
      const before = (await runs(fleet, 'shop', 'spoke-1')).length;
      await kube.delete(webConfig);
      expect((await fleet.call('POST', '/api/v1/projects/shop/reconcile')).status).toBe(409);
      // Past the time the interval would have run it, and two whole scheduler ticks later: no drift correction while suspended.
      const due = Date.parse((await target(fleet, 'shop', 'spoke-1')).nextRunAt);
      await eventually('the interval to pass', async () => (Date.now() > due ? true : undefined), { timeoutMs: (INTERVAL_S + 8) * 1000 });
      const from = await schedulerTicks(fleet);
      await eventually('two scheduler ticks', async () => ((await schedulerTicks(fleet)) >= from + 2 ? true : undefined), { timeoutMs: 30_000 });
      expect(await kube.getOptional(webConfig)).toBeUndefined();
      expect((await runs(fleet, 'shop', 'spoke-1')).length).toBe(before);
      expect((await target(fleet, 'shop', 'spoke-1')).phase).toBe('Suspended');

      expect((await fleet.expectCall(200, 'POST', '/api/v1/projects/shop/resume')).body.suspend).toBe(false);
      await eventually('web-config to come back after resume', async () => (await kube.getOptional(webConfig)) ?? undefined, {
        timeoutMs: 15_000,
        observe: () => target(fleet, 'shop', 'spoke-1'),
      });
      await readyOn(fleet, 'shop', 'spoke-1', revision, 15_000);
    })());
});

/** Scheduler ticks the fleet's hubs completed so far. */
async function schedulerTicks(fleet: HubFleet): Promise<number> {
  const text = (await fleet.call('GET', '/metrics')).text;
  return Number(/^flotilla_scheduler_ticks_total (\d+)/m.exec(text)?.[1] ?? 0);
}
