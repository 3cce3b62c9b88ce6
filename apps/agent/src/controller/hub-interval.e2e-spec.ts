import type { Assignment } from '@flotilla/agent-protocol';
import { defaultBackoffOptions, EngineRuntime, type RunReport } from '@flotilla/engine';
import { adminManager, createTenant } from '../../../../libs/engine/testdata/harness';
import { testDir } from '../../../../test/harness/temp-dirs';
import { installAgent } from '../../test/install';
import { applyObject, configMaps, getProject, projectObject, projectRepository, pushGreeterModule, pushSingle } from '../../test/project-fixtures';
import { EventRecorder } from '../events/event-recorder';
import { projectResourceOf } from '../hub/assignment-resource';
import { createLogger } from '../logging/logger';
import { AgentMetrics } from '../metrics/agent-metrics';
import { HUB_INTERVAL_ANNOTATION, type ProjectResource } from '../project/project-resource';
import { ProjectReconciler, type ReconcileOutcome } from './project-reconciler';

// The hub's interval is the clock of an agent Target: the assignment carries
// it (hub.flotilla.dev/interval-seconds) and the agent's reconciler runs the
// Project at it, not at its own --reconcile-interval. A real reconciler
// (engine, registry, API server) whose schedule reads a clock the test sets:
// "not yet" is the outcome of a reconcile at 19 s, never a sleep.

jest.setTimeout(180_000);

const INTERVAL_S = 20;
/** the agent's own interval: far from the hub's, so the two cannot be mistaken */
const AGENT_INTERVAL_MS = 600_000;
/** no tag poll comes due during the spec (a pinned digest is never polled anyway) */
const POLL_MS = 900_000;

describe('an agent Target with a 20 s interval runs every 20 s, shown on a driven clock', () => {
  const { connection, manager } = adminManager();
  const client = manager.client;
  const runtime = EngineRuntime.create({ cacheDir: testDir('flotilla-hub-interval-cache-') });
  const events = new EventRecorder(connection, { maxPending: 1000, onError: () => undefined });
  /** the reconciler's clock: real time until the spec pins it */
  let pinned: number | undefined;
  const reports: Array<{ project: string; report: RunReport }> = [];
  const reconciler = new ProjectReconciler(
    {
      pollIntervalMs: POLL_MS,
      reconcileIntervalMs: AGENT_INTERVAL_MS,
      backoff: defaultBackoffOptions(),
      cluster: { name: 'spoke', group: 'edge' },
      owner: 'flotilla-agent',
      identity: 'hub-interval-spec',
    },
    {
      runtime,
      manager,
      events,
      metrics: new AgentMetrics(),
      log: createLogger('warn'),
      now: () => pinned ?? Date.now(),
      onRun: (project, report) => reports.push({ project: project.metadata.name, report }),
    },
  );
  const abort = new AbortController();
  let ns: string;
  let moduleUrl: string;

  beforeAll(async () => {
    await installAgent(client);
    [moduleUrl, ns] = await Promise.all([pushGreeterModule(), createTenant(client, 'hub-interval')]);
  });

  afterAll(async () => {
    abort.abort();
    await events.flush();
    await runtime.close();
    await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns }).catch(() => undefined);
    await connection.close();
  });

  /** One pass of the controller: the Project as the API server has it now. */
  async function reconcile(name: string): Promise<ReconcileOutcome> {
    const project = await getProject(client, ns, name);
    expect(project).toBeDefined();
    return reconciler.reconcile(project, `${ns}/${name}`, abort.signal);
  }

  const runsOf = (name: string) => reports.filter((r) => r.project === name).map((r) => r.report);

  /** The finalizer pass, then the first run, on the real clock. */
  async function firstRun(name: string): Promise<RunReport> {
    pinned = undefined;
    expect(await reconcile(name)).toEqual({});
    expect((await getProject(client, ns, name))?.metadata.finalizers).toContain('finalizers.timoni.sh');
    const outcome = await reconcile(name);
    expect(outcome.error).toBeUndefined();
    expect(outcome.ran?.ok).toBe(true);
    return outcome.ran!;
  }

  it('runs a hub-managed Project every 20 s of its clock, and not at 19 s', async () => {
    const repo = projectRepository();
    const digest = await pushSingle(repo, moduleUrl, ns, 'every20');
    const assignment: Assignment = {
      targetId: '00000000-0000-4000-8000-000000000020',
      generation: 1,
      projectName: 'hub-every20',
      projectNamespace: ns,
      repository: repo,
      tag: 'latest',
      path: 'project.cue',
      digest,
      serviceAccountName: 'deployer',
      annotations: {},
      clusterName: 'spoke',
      clusterGroup: 'edge',
      intervalSeconds: INTERVAL_S,
      suspend: false,
      delete: false,
      registryCredentials: undefined,
    tenantPolicy: undefined,
    };
    const resource: ProjectResource = projectResourceOf(assignment);
    expect(resource.metadata.annotations?.[HUB_INTERVAL_ANNOTATION]).toBe('20');
    await applyObject(client, resource);

    const first = await firstRun('hub-every20');
    expect(first.revision).toBe(`latest@${digest}`);
    // healthy (a ConfigMap): the hub's interval governs, not the health recheck
    expect(first.conditions.find((c) => c.type === 'Healthy')?.status).not.toBe('False');
    expect(first.decision).toMatchObject({ action: 'done', afterMs: INTERVAL_S * 1000 });
    expect(runsOf('hub-every20')).toEqual([first]);
    expect((await configMaps(client, ns))['every20-greeting']).toMatchObject({ greeting: 'every20' });
    let status = (await getProject(client, ns, 'hub-every20'))!.status!;
    expect(Date.parse(status.nextReconcileAt!)).toBe(Date.parse(first.finishedAt) + INTERVAL_S * 1000);

    let last = first;
    for (const n of [2, 3]) {
      const finished = Date.parse(last.finishedAt);
      // 19 s after the last run ended: not due, and due in the second left
      pinned = finished + 19_000;
      const early = await reconcile('hub-every20');
      expect(early).toEqual({ requeueAfterMs: 1_000 });
      expect(runsOf('hub-every20')).toHaveLength(n - 1);

      // 20 s after: it runs, and asks to come back 20 s after this run ends
      pinned = finished + 20_000;
      const due = await reconcile('hub-every20');
      expect(due.error).toBeUndefined();
      expect(due.ran).toBeDefined();
      const report = due.ran!;
      expect(report.ok).toBe(true);
      expect(report.decision).toMatchObject({ action: 'done', afterMs: INTERVAL_S * 1000 });
      expect(runsOf('hub-every20')).toHaveLength(n);
      expect(runsOf('hub-every20')[n - 1]).toBe(report);
      // the schedule counts from the run's real end; the driven clock stands at `finished + 20 s`
      expect(due.requeueAfterMs).toBe(Date.parse(report.finishedAt) + INTERVAL_S * 1000 - pinned);
      status = (await getProject(client, ns, 'hub-every20'))!.status!;
      expect(Date.parse(status.nextReconcileAt!)).toBe(Date.parse(report.finishedAt) + INTERVAL_S * 1000);
      last = report;
    }
    expect(runsOf('hub-every20')).toHaveLength(3);
  });

  it('a tenant\'s own Project (no interval annotation) runs at the agent\'s --reconcile-interval: not again at 20 s', async () => {
    const repo = projectRepository();
    const digest = await pushSingle(repo, moduleUrl, ns, 'own');
    await applyObject(client, projectObject('tenant-own', ns, repo));
    expect((await getProject(client, ns, 'tenant-own'))?.metadata.annotations?.[HUB_INTERVAL_ANNOTATION]).toBeUndefined();

    const first = await firstRun('tenant-own');
    expect(first.revision).toBe(`latest@${digest}`);
    expect(first.decision).toMatchObject({ action: 'done', afterMs: AGENT_INTERVAL_MS });
    const finished = Date.parse(first.finishedAt);
    expect(Date.parse((await getProject(client, ns, 'tenant-own'))!.status!.nextReconcileAt!)).toBe(finished + AGENT_INTERVAL_MS);

    // where the hub's Project would run, this one waits out the agent's interval
    pinned = finished + INTERVAL_S * 1000;
    expect(await reconcile('tenant-own')).toEqual({ requeueAfterMs: AGENT_INTERVAL_MS - INTERVAL_S * 1000 });
    expect(runsOf('tenant-own')).toEqual([first]);

    // and runs once that is over
    pinned = finished + AGENT_INTERVAL_MS;
    const due = await reconcile('tenant-own');
    expect(due.ran?.ok).toBe(true);
    expect(runsOf('tenant-own')).toHaveLength(2);
  });
});
