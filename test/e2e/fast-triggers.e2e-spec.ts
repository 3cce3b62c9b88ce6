import { shopProjectFiles } from './fixtures/projects';
import type { HubFleet } from './support/hub-fleet';
import { projectRepository, publishProject, publishWebapp } from './support/publish';
import { configMapData, createProject, readyOn, runs } from './support/shop';
import { spokeSuite } from './support/suite';

// Triggers start runs at once (issue 16): with a scheduler tick and a source
// poll of an hour, only the triggers themselves can make these runs happen.
// A new Project runs without waiting for either; a manual reconcile right
// after the tag moved resolves it first and applies the new digest.

jest.setTimeout(90_000);

describe('push mode: triggers run at once, not at the next tick or poll', () => {
  let fleet: HubFleet;
  const { registry, kube, ns } = spokeSuite('e2e-fast', { timing: { tick: '1h', leaseTtl: '3s', sourcePoll: '1h' }, started: (f) => (fleet = f) });

  it('runs a new Project at once, and a manual reconcile after a tag move applies the new digest', () =>
    fleet.guard(async () => {
      const moduleUrl = await publishWebapp(registry);
      const repo = projectRepository();
      const publish = async (message: string) => `latest@${await publishProject(registry, repo, shopProjectFiles({ moduleUrl, moduleVersion: '1.0.0', namespace: ns, infra: ['db'], message }))}`;
      const first = await publish('first');
      await createProject(fleet, { name: 'shop', namespace: ns, repository: repo });
      await readyOn(fleet, 'shop', 'spoke-1', first, 30_000);
      expect((await runs(fleet, 'shop', 'spoke-1'))[0]).toMatchObject({ trigger: 'Created', revision: first });

      const moved = await publish('moved');
      const requested = await fleet.expectCall(202, 'POST', '/api/v1/projects/shop/reconcile');
      expect(requested.body).toEqual({ requested: 1, revision: moved, sourceError: null });
      await readyOn(fleet, 'shop', 'spoke-1', moved, 30_000);
      const [run] = await runs(fleet, 'shop', 'spoke-1');
      expect(run).toMatchObject({ revision: moved, result: 'Succeeded' });
      expect(['Manual', 'NewRevision']).toContain(run.trigger);
      expect((await configMapData(kube, ns))['web-config']).toEqual({ message: 'moved', cluster: 'spoke-1' });
      // the old digest was never applied again
      expect((await runs(fleet, 'shop', 'spoke-1')).filter((r) => r.revision === first)).toHaveLength(1);
    })());
});
