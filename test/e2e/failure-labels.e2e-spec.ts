import { harnessEnv } from '../harness/env';
import { shopProjectFiles } from './fixtures/projects';
import type { HubFleet } from './support/hub-fleet';
import { projectRepository, publishProject, publishWebapp } from './support/publish';
import { eventually } from './support/eventually';
import { createProject, readyOn, target, type TargetView } from './support/shop';
import { uniqueName } from './support/spoke';
import { spokeSuite } from './support/suite';

// What a platform team reads first when something is wrong (issue 16): the
// status names the real cause. A missing service account or namespace is
// named instead of the 403 a request as it gets; a registry refusing the
// credentials is a source failure, not an unreachable cluster; a revision
// that does not build never reads "applied".

jest.setTimeout(90_000);

describe('failures named for what they are', () => {
  let fleet: HubFleet;
  const { registry, kube, ns } = spokeSuite('e2e-labels', { instanceNamespaces: (n) => [n, `${n}-bye`], started: (f) => (fleet = f) });
  let repo: string;
  let moduleUrl: string;

  beforeAll(async () => {
    moduleUrl = await publishWebapp(registry);
    repo = projectRepository();
    await publishProject(registry, repo, shopProjectFiles({ moduleUrl, moduleVersion: '1.0.0', namespace: ns, infra: ['db'], message: 'hi', extraWebValues: 'replica: 2' }));
  });

  const failedTarget = (project: string, what: (t: TargetView) => boolean) =>
    eventually(
      `${project} to fail`,
      async () => {
        const t = await target(fleet, project, 'spoke-1');
        return t.conditions.some((c) => c.type === 'Ready' && c.status === 'False' && what(t)) ? t : undefined;
      },
      { timeoutMs: 30_000, observe: () => target(fleet, project, 'spoke-1') },
    );
  const ready = (t: TargetView) => t.conditions.find((c) => c.type === 'Ready')!;

  it('names the missing service account, then the missing namespace', () =>
    fleet.guard(async () => {
      await createProject(fleet, { name: 'no-account', namespace: ns, repository: repo }, { serviceAccountName: 'nobody' });
      const noAccount = ready(await failedTarget('no-account', (t) => ready(t).reason === 'ServiceAccountNotFound'));
      expect(noAccount.message).toContain(`ServiceAccount ${ns}/nobody does not exist in cluster spoke-1`);
      expect(noAccount.message).not.toMatch(/403|forbidden/i);

      const missing = uniqueName('e2e-nowhere');
      await createProject(fleet, { name: 'no-namespace', namespace: missing, repository: repo });
      const noNamespace = ready(await failedTarget('no-namespace', (t) => ready(t).reason === 'ServiceAccountNotFound'));
      expect(noNamespace.message).toContain(`namespace ${missing} does not exist in cluster spoke-1`);
    })());

  it('labels a registry that refuses the credentials as a source failure, never ClusterUnreachable', () =>
    fleet.guard(async () => {
      const auth = harnessEnv().registryAuth;
      const privateRepo = `oci://${auth.host}/${uniqueName('e2e/projects/refused')}`;
      await createProject(fleet, { name: 'refused', namespace: ns, repository: privateRepo }, { registryCredentials: { username: auth.username, password: 'wrong-password' } });
      const refused = ready(await failedTarget('refused', (t) => ready(t).reason !== 'SourcePending'));
      expect(refused.reason).toBe('SourceResolveFailed');
      expect(refused.message).toMatch(/401|unauthorized|denied/i);
      const events = (await fleet.expectCall(200, 'GET', '/api/v1/projects/refused/events')).body.items as Array<{ reason: string }>;
      expect(events.map((e) => e.reason)).not.toContain('ClusterUnreachable');
    })());

  it('says a revision that does not build failed to build, not that it was applied', () =>
    fleet.guard(async () => {
      await createProject(fleet, { name: 'typo', namespace: ns, repository: repo });
      await failedTarget('typo', (t) => ready(t).reason === 'BuildFailed');
      const events = (await fleet.expectCall(200, 'GET', '/api/v1/projects/typo/events')).body.items as Array<{ reason: string; message: string }>;
      const failed = events.find((e) => e.reason === 'InstanceApplyFailed');
      expect(failed?.message).toMatch(/ build failed after \d+ ms: /);
      expect(failed?.message).not.toMatch(/ applied in /);
    })());

  it('says a Target is deleting while a finalizer holds its deletion, not that it is Ready', () =>
    fleet.guard(async () => {
      const goodRepo = projectRepository();
      const revision = `latest@${await publishProject(registry, goodRepo, shopProjectFiles({ moduleUrl, moduleVersion: '1.0.0', namespace: `${ns}-bye`, infra: ['db'], message: 'bye' }))}`;
      await createProject(fleet, { name: 'bye', namespace: ns, repository: goodRepo });
      await readyOn(fleet, 'bye', 'spoke-1', revision);
      const held = { apiVersion: 'v1', kind: 'ConfigMap', namespace: `${ns}-bye`, name: 'web-config' };
      await kube.patch(held, { metadata: { finalizers: ['flotilla.test/hold'] } }, 'merge', { fieldManager: 'flotilla-e2e' });
      await fleet.expectCall(202, 'DELETE', '/api/v1/projects/bye');
      const deleting = await eventually(
        'the Target to say it is deleting',
        async () => {
          const t = await target(fleet, 'bye', 'spoke-1');
          return t.phase === 'Deleting' && ready(t).status === 'Unknown' ? t : undefined;
        },
        { timeoutMs: 30_000, observe: () => target(fleet, 'bye', 'spoke-1') },
      );
      expect(ready(deleting).message).toBe('deleting the instances of project bye from cluster spoke-1');
      await kube.patch(held, { metadata: { finalizers: null } }, 'merge', { fieldManager: 'flotilla-e2e' });
      await eventually('the Project to be gone', async () => ((await fleet.call('GET', '/api/v1/projects/bye')).status === 404 ? true : undefined), { timeoutMs: 30_000 });
    })());
});
