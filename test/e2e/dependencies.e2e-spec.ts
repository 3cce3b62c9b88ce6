import { shopProjectFiles } from './fixtures/projects';
import { eventually } from './support/eventually';
import type { HubFleet } from './support/hub-fleet';
import { projectRepository, publishProject, publishWebapp } from './support/publish';
import { createProject, deploymentNames, readyOn, runs, target } from './support/shop';
import { DeploymentReadiness } from './support/spoke';
import { spokeSuite } from './support/suite';

// A component that waits and never gets healthy (issue 8): it fails within
// its timeout, its dependent is not applied, the run retries with backoff,
// and once the Deployment is healthy the next retry applies the dependent.

jest.setTimeout(90_000);

describe('push mode: a waiting component that times out holds back its dependents', () => {
  let fleet: HubFleet;
  const { registry, kube, ns, beforeStop } = spokeSuite('e2e-deps', { started: (f) => (fleet = f) });
  let readiness: DeploymentReadiness | undefined;
  beforeStop(() => readiness?.stop());

  it('fails infra on its timeout, skips app, and applies app once infra is healthy', () =>
    fleet.guard(async () => {
      const moduleUrl = await publishWebapp(registry);
      const repo = projectRepository();
      const revision = `latest@${await publishProject(registry, repo, shopProjectFiles({ moduleUrl, moduleVersion: '1.0.0', namespace: ns, infra: ['db'], message: 'hi', infraWait: true, infraTimeout: '3s' }))}`;
      await createProject(fleet, { name: 'shop', namespace: ns, repository: repo });

      const failed = await eventually(
        'infra to time out',
        async () => {
          const t = await target(fleet, 'shop', 'spoke-1');
          return t.phase === 'Failed' ? t : undefined;
        },
        { timeoutMs: 30_000, observe: () => target(fleet, 'shop', 'spoke-1') },
      );
      const components = Object.fromEntries(failed.components.map((c) => [c.name, c]));
      expect(components.infra).toMatchObject({ status: 'Failed' });
      expect(components.infra.error?.reason).toMatch(/ComponentTimeout|HealthCheckFailed/);
      expect(components.infra.error?.message).toMatch(/component infra: .*timeout of 3s/);
      // Pending (engine): the timeout should name the object that was not healthy and why, not a
      // ConfigMap GET that the deadline aborted ("ConfigMap/…/db-config: … no response: deadline of 3000 ms exceeded").
      const db = components.infra.instances.find((i) => i.name === 'db')!;
      expect(db.error?.message).toMatch(/Deployment\/[^/]+\/db/);
      expect(db.error?.message).not.toMatch(/ConfigMap/);
      expect(components.app.error?.reason).toBe('DependencyNotReady');
      expect(failed.conditions.find((c) => c.type === 'Reconciling')).toMatchObject({ reason: 'ProgressingWithRetry' });
      expect(failed.attempt).toBe(1);
      expect(await deploymentNames(kube, ns)).toEqual(['db']); // web never applied

      const [run] = await runs(fleet, 'shop', 'spoke-1');
      expect(run.result).toBe('Failed');
      // Pending (engine/hub): the instance's objects were created before the wait failed; the Run row says created 0.
      expect(run.instances.find((i) => i.name === 'db')?.counts).toMatchObject({ created: 2 });
      expect(run.durationMs).toBeGreaterThanOrEqual(3000 - 100); // it waited for the timeout
      expect(run.durationMs).toBeLessThan(15_000);

      // The Deployment turns healthy; the next retry goes through to app.
      readiness = new DeploymentReadiness(kube, () => [ns], 0).start();
      const ready = await readyOn(fleet, 'shop', 'spoke-1', revision, 30_000);
      expect(ready.attempt).toBe(0);
      expect(await deploymentNames(kube, ns)).toEqual(['db', 'web']);
      const [retry] = await runs(fleet, 'shop', 'spoke-1');
      expect(retry).toMatchObject({ trigger: 'Retry', result: 'Succeeded' });
    })());
});
