import { PROJECT_NAME_LABEL } from '@flotilla/engine';
import { shopProjectFiles } from './fixtures/projects';
import type { HubFleet } from './support/hub-fleet';
import { projectRepository, publishProject, publishWebapp } from './support/publish';
import { eventually } from './support/eventually';
import { configMapData, createProject, readyOn, target, type TargetView } from './support/shop';
import { spokeSuite } from './support/suite';

// A cluster leaving a Project's targets (issue 16, item 3): its instances
// are deleted there, with the Target in Deleting until they are gone, or
// orphaned when the Project says `targetRemoval: orphan`; an orphaned
// instance is taken over by another Project only with `overwriteOwnership`.

jest.setTimeout(120_000);

interface EventView {
  reason: string;
  message: string;
  cluster: string | null;
}

describe('removing a cluster from a Project’s targets', () => {
  let fleet: HubFleet;
  const { registry, kube, ns } = spokeSuite('e2e-removal', { instanceNamespaces: (n) => [n, `${n}-leave`, `${n}-keep`], started: (f) => (fleet = f) });
  let moduleUrl: string;

  beforeAll(async () => {
    moduleUrl = await publishWebapp(registry);
  });

  /** A repository whose `latest` deploys the shop into `namespace`, and the revision it is at. */
  async function shopIn(namespace: string): Promise<{ repo: string; revision: string }> {
    const repo = projectRepository();
    const digest = await publishProject(registry, repo, shopProjectFiles({ moduleUrl, moduleVersion: '1.0.0', namespace, infra: ['db'], message: 'hi' }));
    return { repo, revision: `latest@${digest}` };
  }
  const events = async (project: string): Promise<EventView[]> => (await fleet.expectCall(200, 'GET', `/api/v1/projects/${project}/events?limit=100`)).body.items as EventView[];
  const inventoryOwners = async (namespace: string): Promise<string[]> =>
    (await kube.list('v1', 'Secret', { namespace })).filter((s) => s.metadata.name.startsWith('timoni.')).map((s) => `${s.metadata.name}:${s.metadata.labels?.[PROJECT_NAME_LABEL]}`).sort();
  const ready = (t: TargetView) => t.conditions.find((c) => c.type === 'Ready')!;

  it('deletes the instances there, shows the Target Deleting until they are gone, and a later Project deletion still cleans up', () =>
    fleet.guard(async () => {
      const namespace = `${ns}-leave`;
      const { repo, revision } = await shopIn(namespace);
      await createProject(fleet, { name: 'leaving', namespace: ns, repository: repo });
      await readyOn(fleet, 'leaving', 'spoke-1', revision);
      expect(Object.keys(await configMapData(kube, namespace)).sort()).toEqual(['db-config', 'web-config']);

      // a finalizer holds the deletion, so the Deleting state can be seen
      const held = { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'web-config' };
      await kube.patch(held, { metadata: { finalizers: ['flotilla.test/hold'] } }, 'merge', { fieldManager: 'flotilla-e2e' });
      await fleet.expectCall(200, 'PATCH', '/api/v1/projects/leaving', { targets: { names: ['elsewhere'] } });
      const deleting = await eventually(
        'the removed Target to say it is deleting',
        async () => {
          const t = (await target(fleet, 'leaving', 'spoke-1')) as TargetView & { removing: boolean };
          return t.phase === 'Deleting' && t.removing && ready(t).status === 'Unknown' ? t : undefined;
        },
        { timeoutMs: 30_000, observe: () => target(fleet, 'leaving', 'spoke-1') },
      );
      expect(ready(deleting).message).toBe("deleting the instances of project leaving from cluster spoke-1, which no longer matches the Project's targets");
      const project = (await fleet.expectCall(200, 'GET', '/api/v1/projects/leaving')).body;
      expect(project.status).toMatchObject({ deleting: false, phases: { Deleting: 1 } });
      expect((await events('leaving')).find((e) => e.reason === 'TargetRemoved')?.message).toBe("cluster spoke-1 no longer matches the Project's targets: deleting its instances there");

      await kube.patch(held, { metadata: { finalizers: null } }, 'merge', { fieldManager: 'flotilla-e2e' });
      await eventually('the Target to be gone', async () => ((await fleet.call('GET', '/api/v1/projects/leaving/targets/spoke-1')).status === 404 ? true : undefined), { timeoutMs: 30_000 });
      expect(await configMapData(kube, namespace)).toEqual({});
      expect(await inventoryOwners(namespace)).toEqual([]);
      expect((await events('leaving')).map((e) => e.reason)).toContain('InstancesDeleted');
      // the Project itself stays, with no Targets
      expect((await fleet.expectCall(200, 'GET', '/api/v1/projects/leaving')).body.status).toMatchObject({ targets: 0, deleting: false });

      // back on the cluster, then deleted: the instances go with it
      await fleet.expectCall(200, 'PATCH', '/api/v1/projects/leaving', { targets: { names: ['spoke-1'] } });
      await readyOn(fleet, 'leaving', 'spoke-1', revision);
      expect(await inventoryOwners(namespace)).toEqual(['timoni.db:leaving', 'timoni.web:leaving']);
      await fleet.expectCall(202, 'DELETE', '/api/v1/projects/leaving');
      await eventually('the Project to be gone', async () => ((await fleet.call('GET', '/api/v1/projects/leaving')).status === 404 ? true : undefined), { timeoutMs: 30_000 });
      expect(await configMapData(kube, namespace)).toEqual({});
      expect(await inventoryOwners(namespace)).toEqual([]);
    })());

  it('orphans them when the Project says so; another Project takes them over only with overwriteOwnership', () =>
    fleet.guard(async () => {
      const namespace = `${ns}-keep`;
      const { repo, revision } = await shopIn(namespace);
      await createProject(fleet, { name: 'keeper', namespace: ns, repository: repo }, { targetRemoval: 'orphan' });
      expect((await fleet.expectCall(200, 'GET', '/api/v1/projects/keeper')).body).toMatchObject({ targetRemoval: 'orphan', overwriteOwnership: false });
      await readyOn(fleet, 'keeper', 'spoke-1', revision);

      await fleet.expectCall(200, 'PATCH', '/api/v1/projects/keeper', { targets: null });
      // orphaned at once: the Target is gone when the PATCH answers, the instances stay
      expect((await fleet.call('GET', '/api/v1/projects/keeper/targets/spoke-1')).status).toBe(404);
      expect((await events('keeper')).find((e) => e.reason === 'TargetRemoved')?.message).toBe(
        "cluster spoke-1 no longer matches the Project's targets: its instances there are orphaned (targetRemoval: orphan)",
      );
      expect(await fleet.expectCall(200, 'DELETE', '/api/v1/projects/keeper').then((r) => r.body)).toEqual({ state: 'deleted' });
      expect(Object.keys(await configMapData(kube, namespace)).sort()).toEqual(['db-config', 'web-config']);
      expect(await inventoryOwners(namespace)).toEqual(['timoni.db:keeper', 'timoni.web:keeper']);

      // another Project on the same instances stalls, and the message names the API field that takes them over
      await createProject(fleet, { name: 'heir', namespace: ns, repository: repo });
      const conflict = await eventually(
        'heir to stall on the ownership conflict',
        async () => {
          const t = await target(fleet, 'heir', 'spoke-1');
          return ready(t).reason === 'OwnershipConflict' ? ready(t) : undefined;
        },
        { timeoutMs: 30_000, observe: () => target(fleet, 'heir', 'spoke-1') },
      );
      expect(conflict.message).toContain(`belongs to Project ${ns}/keeper; remove it from there first, or set overwriteOwnership: true on this Project to take it over`);

      const patched = (await fleet.expectCall(200, 'PATCH', '/api/v1/projects/heir', { overwriteOwnership: true })).body;
      expect(patched).toMatchObject({ overwriteOwnership: true, generation: 2 });
      await readyOn(fleet, 'heir', 'spoke-1', revision);
      expect(await inventoryOwners(namespace)).toEqual(['timoni.db:heir', 'timoni.web:heir']);

      await fleet.expectCall(202, 'DELETE', '/api/v1/projects/heir');
      await eventually('heir to be gone', async () => ((await fleet.call('GET', '/api/v1/projects/heir')).status === 404 ? true : undefined), { timeoutMs: 30_000 });
      expect(await configMapData(kube, namespace)).toEqual({});
    })());

  it('refuses a bad targetRemoval or overwriteOwnership, changing nothing, and documents both', () =>
    fleet.guard(async () => {
      const base = { name: 'strict', namespace: ns, source: { repository: 'oci://127.0.0.1:1/none' }, targets: { names: ['spoke-1'] } };
      const badRemoval = await fleet.call('POST', '/api/v1/projects', { ...base, targetRemoval: 'sometimes' });
      expect(badRemoval.status).toBe(400);
      expect(badRemoval.text).toContain('targetRemoval: must be delete or orphan');
      const badOverwrite = await fleet.call('POST', '/api/v1/projects', { ...base, overwriteOwnership: 'yes' });
      expect(badOverwrite.status).toBe(400);
      expect(badOverwrite.text).toContain('overwriteOwnership: must be true or false');
      expect((await fleet.call('GET', '/api/v1/projects/strict')).status).toBe(404);

      await fleet.expectCall(201, 'POST', '/api/v1/projects', { ...base, suspend: true });
      expect((await fleet.call('PATCH', '/api/v1/projects/strict', { targetRemoval: 'later' })).status).toBe(400);
      const unchanged = (await fleet.expectCall(200, 'GET', '/api/v1/projects/strict')).body;
      expect(unchanged).toMatchObject({ targetRemoval: 'delete', overwriteOwnership: false, generation: 1 });
      // null puts back the default
      await fleet.expectCall(200, 'PATCH', '/api/v1/projects/strict', { targetRemoval: 'orphan' });
      expect((await fleet.expectCall(200, 'PATCH', '/api/v1/projects/strict', { targetRemoval: null })).body.targetRemoval).toBe('delete');

      const doc = (await fleet.expectCall(200, 'GET', '/api/docs-json')).body;
      const create = doc.components.schemas.CreateProjectDto.properties;
      expect(create.targetRemoval).toMatchObject({ enum: ['delete', 'orphan'], default: 'delete' });
      expect(create.overwriteOwnership).toMatchObject({ type: 'boolean', default: false });
      expect(doc.components.schemas.TargetDto.properties.removing.type).toBe('boolean');
    })());
});
