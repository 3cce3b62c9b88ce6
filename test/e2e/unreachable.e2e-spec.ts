import { harnessEnv } from '../harness/env';
import { shopProjectFiles } from './fixtures/projects';
import { eventually } from './support/eventually';
import type { HubFleet } from './support/hub-fleet';
import { projectRepository, publishProject, publishWebapp } from './support/publish';
import { configMapData, createProject, readyOn, runs, target } from './support/shop';
import { spokeSuite } from './support/suite';

// One Project on a reachable and an unreachable push cluster (issue 8): the
// unreachable one fails with a retry on the backoff and never holds the
// other back.

jest.setTimeout(90_000);

describe('push mode: an unreachable cluster next to a reachable one', () => {
  let fleet: HubFleet;
  const { registry, kube, ns } = spokeSuite('e2e-ghost', { started: (f) => (fleet = f) });

  beforeAll(async () => {
    // a port nothing listens on: connections are refused at once
    await fleet.expectCall(201, 'POST', '/api/v1/clusters', {
      name: 'ghost',
      group: 'staging',
      mode: 'push',
      endpoint: { server: 'https://127.0.0.1:1', caData: harnessEnv().kube.caData },
      credentials: { token: 'not-a-real-token' },
    });
  });

  it('converges on the reachable cluster and retries the other with backoff', () =>
    fleet.guard(async () => {
      const moduleUrl = await publishWebapp(registry);
      const repo = projectRepository();
      const revision = `latest@${await publishProject(registry, repo, shopProjectFiles({ moduleUrl, moduleVersion: '1.0.0', namespace: ns, infra: ['db'], message: 'hi' }))}`;
      await createProject(fleet, { name: 'shop', namespace: ns, repository: repo }, {
        targets: { groups: ['staging'] },
      });
      await readyOn(fleet, 'shop', 'spoke-1', revision);
      expect((await configMapData(kube, ns))['web-config']).toEqual({ message: 'hi', cluster: 'spoke-1' });

      const ghost = await eventually(
        'the unreachable cluster to fail twice',
        async () => {
          const t = await target(fleet, 'shop', 'ghost');
          return t.attempt >= 2 ? t : undefined;
        },
        { timeoutMs: 30_000, observe: () => target(fleet, 'shop', 'ghost') },
      );
      expect(ghost.phase).toBe('Failed');
      expect(ghost.lastAppliedRevision).toBeNull();
      const ready = ghost.conditions.find((c) => c.type === 'Ready')!;
      expect(ready.status).toBe('False');
      expect(ready.message).toMatch(/127\.0\.0\.1:1|ECONNREFUSED|connect/i);
      // the API server did not answer: not a registry or credentials problem
      expect(ready.reason).toBe('ClusterUnreachable');
      expect(ghost.conditions.find((c) => c.type === 'Reconciling')).toMatchObject({ reason: 'ProgressingWithRetry' });
      const ghostRuns = await runs(fleet, 'shop', 'ghost');
      expect(ghostRuns.map((r) => r.result)).toEqual(['Failed', 'Failed']);
      expect(ghostRuns[0].trigger).toBe('Retry');

      const project = (await fleet.expectCall(200, 'GET', '/api/v1/projects/shop')).body;
      expect(project.status).toMatchObject({ targets: 2, ready: 1, phases: { Ready: 1, Failed: 1 } });
    })());
});
