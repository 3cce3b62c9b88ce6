import { Client } from 'pg';
import { shopProjectFiles, type ShopRevision } from './fixtures/projects';
import { eventually, overlappingRuns } from './support/eventually';
import type { HubFleet } from './support/hub-fleet';
import { projectRepository, publishProject, publishWebapp } from './support/publish';
import { configMapData, createProject, readyOn, runs } from './support/shop';
import { DeploymentReadiness } from './support/spoke';
import { spokeSuite } from './support/suite';

// Issue 8, third end-to-end suite: three compiled hubs share one PostgreSQL.
// The hub running the Target is killed with SIGKILL mid-run (the run waits
// for Deployments this suite marks ready only after a delay); another hub
// takes the Target over when the lease expires, and the Run rows prove that
// no two runs of the Target overlapped.

jest.setTimeout(90_000);

const LEASE_TTL_MS = 3000;

describe('three hubs on one PostgreSQL, one killed during a run', () => {
  let fleet: HubFleet;
  const { registry, kube, ns, beforeStop } = spokeSuite('e2e-kill', { started: (f) => (fleet = f), hubs: ['hub-a', 'hub-b', 'hub-c'], timing: { tick: '200ms', leaseTtl: `${LEASE_TTL_MS}ms`, sourcePoll: '1s' } });
  let readiness: DeploymentReadiness;
  beforeStop(() => readiness?.stop());
  let rev1: ShopRevision;
  let repo: string;

  beforeAll(async () => {
    // No kubelet: Deployments become ready 4 s after each change, which keeps a waiting run in flight.
    readiness = new DeploymentReadiness(kube, () => [ns], 4000).start();
  });

  it('converges after the running hub dies, without two runs of the Target at once', () =>
    fleet.guard(async () => {
      const moduleUrl = await publishWebapp(registry);
      repo = projectRepository();
      rev1 = { moduleUrl, moduleVersion: '1.0.0', namespace: ns, infra: ['db'], message: 'hi', infraWait: true, infraTimeout: '40s' };
      const digest = await publishProject(registry, repo, shopProjectFiles(rev1));
      const revision = `latest@${digest}`;
      await createProject(fleet, { name: 'shop', namespace: ns, repository: repo }, {
        interval: '10m',
      });

      // Whoever holds the run while it waits for the Deployment gets killed.
      const inFlight = await eventually(
        'a run waiting for the infra Deployment',
        async () => {
          const running = (await runs(fleet, 'shop', 'spoke-1')).find((r) => r.result === 'Running');
          const deployed = (await kube.list('apps/v1', 'Deployment', { namespace: ns })).length > 0;
          return running && deployed ? running : undefined;
        },
        { timeoutMs: 20_000, intervalMs: 100, observe: () => runs(fleet, 'shop', 'spoke-1') },
      );
      const victim = fleet.hub(inFlight.leaseOwner!);
      // The lease as it stands just before the kill (renewals can only push it later).
      const leaseExpiry = await leaseExpiresAt(fleet.databaseUrl);
      await victim.kill();
      const killedAt = Date.now();

      await readyOn(fleet, 'shop', 'spoke-1', revision, 40_000);
      const history = await runs(fleet, 'shop', 'spoke-1');
      const killed = history.find((r) => r.id === inFlight.id)!;
      expect(killed).toMatchObject({ result: 'Abandoned', leaseOwner: victim.id });
      const takeover = history.find((r) => r.result === 'Succeeded')!;
      expect(takeover.leaseOwner).not.toBe(victim.id);
      // Taken over only once the dead hub's lease had run out (both times are the database's clock).
      expect(leaseExpiry.getTime()).toBeGreaterThan(killedAt - LEASE_TTL_MS);
      expect(Date.parse(takeover.startedAt)).toBeGreaterThanOrEqual(leaseExpiry.getTime());
      expect(history.every((r) => r.finishedAt !== null)).toBe(true);
      expect(overlappingRuns(history)).toEqual([]);

      expect(await configMapData(kube, ns)).toEqual({
        'db-config': { message: 'db of the shop', cluster: 'spoke-1' },
        'web-config': { message: 'hi', cluster: 'spoke-1' },
      });
      const survivors = fleet.hubs.filter((h) => h.running);
      const takeovers = await Promise.all(
        survivors.map(async (h) => Number(/^flotilla_scheduler_lease_takeovers_total (\d+)$/m.exec((await fleet.call('GET', '/metrics', undefined, h)).text)?.[1] ?? 0)),
      );
      expect(takeovers.reduce((a, b) => a + b, 0)).toBe(1);

      // Both survivors asked at once to reconcile, again and again: still one run at a time.
      const before = history.length;
      for (let round = 0; round < 3; round++) {
        await Promise.all(survivors.map((h) => fleet.call('POST', '/api/v1/projects/shop/reconcile', undefined, h)));
        await eventually(
          `manual run ${round + 1}`,
          async () => {
            const all = await runs(fleet, 'shop', 'spoke-1');
            return all.length >= before + round + 1 && all.every((r) => r.result !== 'Running') ? all : undefined;
          },
          { timeoutMs: 20_000, observe: () => runs(fleet, 'shop', 'spoke-1') },
        );
      }
      const all = await runs(fleet, 'shop', 'spoke-1');
      expect(all.filter((r) => r.trigger === 'Manual' && r.result === 'Succeeded').length).toBeGreaterThanOrEqual(3);
      expect(overlappingRuns(all)).toEqual([]);
    })());

  it('hands a run over at once when its hub shuts down gracefully mid-run', () =>
    fleet.guard(async () => {
      readiness.delayMs = 10_000; // longer than the shutdown grace (2 s), so the run is still waiting when it ends
      const revision = `latest@${await publishProject(registry, repo, shopProjectFiles({ ...rev1, infraReplicas: 2 }))}`;
      const inFlight = await eventually(
        'a run of the new revision waiting for the Deployment',
        async () => {
          const running = (await runs(fleet, 'shop', 'spoke-1')).find((r) => r.result === 'Running' && r.revision === revision);
          const db = await kube.getOptional({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'db' });
          return running && (db?.spec as { replicas?: number } | undefined)?.replicas === 2 ? running : undefined;
        },
        { timeoutMs: 20_000, intervalMs: 100, observe: () => runs(fleet, 'shop', 'spoke-1') },
      );
      const leaving = fleet.hub(inFlight.leaseOwner!);
      await leaving.stop();
      // Nest re-raises SIGTERM after its shutdown hooks; SIGKILL would mean stop() had to force it.
      expect([0, 'SIGTERM']).toContain(await leaving.exited);
      readiness.delayMs = 1000;

      await readyOn(fleet, 'shop', 'spoke-1', revision, 40_000);
      const history = await runs(fleet, 'shop', 'spoke-1');
      const interrupted = history.find((r) => r.id === inFlight.id)!;
      expect(interrupted.result).toBe('Abandoned');
      expect(interrupted.error).toMatch(/shutting down/);
      const next = history.find((r) => r.result === 'Succeeded' && r.revision === revision)!;
      expect(next.leaseOwner).not.toBe(leaving.id);
      // The lease was released, not left to expire: the next run started within a few ticks.
      expect(Date.parse(next.startedAt) - Date.parse(interrupted.finishedAt!)).toBeLessThan(LEASE_TTL_MS);
      expect(overlappingRuns(history)).toEqual([]);
    })());
});

/** lease_expires_at of the suite's only Target, read straight from the hubs' database. */
async function leaseExpiresAt(databaseUrl: string): Promise<Date> {
  const c = new Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const { rows } = await c.query<{ lease_expires_at: Date | null }>('SELECT lease_expires_at FROM targets');
    if (rows.length !== 1 || !rows[0].lease_expires_at) throw new Error(`expected one leased Target, found ${JSON.stringify(rows)}`);
    return rows[0].lease_expires_at;
  } finally {
    await c.end();
  }
}
