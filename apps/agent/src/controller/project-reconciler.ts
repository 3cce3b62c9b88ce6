// The inner reconcile of one Project, straight through: gone → forget;
// deleting → delete its instances and let it go; no finalizer → add it;
// invalid or suspended → stop; not due and the tag unchanged → wait; else
// run the engine, write the status it reports, and come back when the
// engine's decision (interval or backoff) or the next tag poll says.
import { type EventFacts, type InstanceHistory, serviceChange } from '@flotilla/cdevents';
import type { AgentCdeventsEmitter } from '../events/cdevents-emitter';
import { appliedInstance, buildRunReport, revisionDigest, type BackoffOptions, formatRevision, removedInstance, type ClusterTarget, type Condition, type EngineRuntime, type ReportInstance, type RunReport } from '@flotilla/engine';
import { ConflictError, NotFoundError, type ObjectClient, type ResourceManager } from '@flotilla/kube';
import { instanceEvent, projectEvent, type EventText } from '../events/project-event';
import type { EventRecorder } from '../events/event-recorder';
import { HUB_INTERVAL_ANNOTATION, PROJECT_API_VERSION, PROJECT_FINALIZER, PROJECT_KIND, projectKey, SUSPEND_ANNOTATION, type ProjectResource, type ProjectResourceStatus } from '../project/project-resource';
import { projectIntent, projectSpecOf, type ProjectIntent } from '../project/project-spec';
import { statusAfterRun, statusInvalid, statusReconciling } from '../project/project-status';
import type { Logger } from '../logging/logger';

/** What the reconciler needs of the metrics (AgentMetrics implements it). */
export interface ProjectMetricsSink {
  recordInstance(project: { name: string; namespace: string; source: string; revision: string }, instance: ReportInstance): void;
  forgetInstance(project: { name: string; namespace: string }, instance: { name: string; namespace: string; component: string }): void;
  forgetProject(namespace: string, name: string): void;
}

export interface ReconcilerSettings {
  pollIntervalMs: number;
  reconcileIntervalMs: number;
  backoff: BackoffOptions;
  /** after a run that left objects unhealthy, the Project runs again within this (default the engine's 30 s) */
  healthRecheckMs?: number;
  cluster: ClusterTarget;
  owner: string;
  /** this replica, as Events name their reporter */
  identity: string;
}

export interface ReconcilerDeps {
  runtime: EngineRuntime;
  /** the agent's own identity: status, finalizers and (through the engine) impersonation */
  manager: ResourceManager;
  events: EventRecorder;
  metrics: ProjectMetricsSink;
  log: Logger;
  now?: () => number;
  /** sends CDEvents to the sinks Projects name */
  cdevents?: AgentCdeventsEmitter;
  /** every run's report (reconcile or delete), e.g. for the hub a connected agent reports to */
  onRun?: (project: ProjectResource, report: RunReport) => void;
}

/** What the controller does with the key afterwards. */
export interface ReconcileOutcome {
  /** come back after this long; absent: only a change of the Project brings it back */
  requeueAfterMs?: number;
  /** the step failed in a way the queue's own backoff should retry (a conflict, the API server down) */
  error?: Error;
  /** a reconcile run of the engine happened */
  ran?: RunReport;
}

/** In-memory schedule of one Project; rebuilt from its status after a restart or failover. */
interface Schedule {
  attempt: number;
  /** epoch ms when a full reconcile is due */
  dueAt: number;
  /** epoch ms of the next tag poll */
  pollAt: number;
  /** generation and reconcile request answered last (the watch may still deliver an older status) */
  generation?: number;
  request?: string;
  /** the suspension was announced (an Event); a request refused while suspended */
  suspendedNoted?: boolean;
  refusedRequest?: string;
}

export class ProjectReconciler {
  private readonly schedules = new Map<string, Schedule>();
  private readonly client: ObjectClient;
  private readonly now: () => number;

  constructor(
    private readonly settings: ReconcilerSettings,
    private readonly deps: ReconcilerDeps,
  ) {
    this.client = deps.manager.client;
    this.now = deps.now ?? Date.now;
  }

  /** The next reconcile of `key` resolves its tag whatever the poll interval says (a CDEvent said it moved). */
  pollNow(key: string): void {
    const schedule = this.schedules.get(key);
    if (schedule) schedule.pollAt = 0;
  }

  /**
   * How long after a success the Project runs again: a hub-managed one at
   * the interval its assignment carries (the hub's Project interval), any
   * other at --reconcile-interval.
   */
  private intervalOf(project: ProjectResource): number {
    const seconds = Number(project.metadata.annotations?.[HUB_INTERVAL_ANNOTATION]);
    return Number.isInteger(seconds) && seconds > 0 ? seconds * 1000 : this.settings.reconcileIntervalMs;
  }

  /** Drops every schedule: a replica that (re)gains leadership reads them from the statuses another may have written. */
  resetSchedules(): void {
    this.schedules.clear();
  }

  /** Forgets what the reconciler remembers of a Project that is gone. */
  forget(namespace: string, name: string): void {
    this.schedules.delete(`${namespace}/${name}`);
    this.deps.metrics.forgetProject(namespace, name);
  }

  async reconcile(project: ProjectResource | undefined, key: string, signal: AbortSignal): Promise<ReconcileOutcome> {
    if (!project) {
      const [namespace, name] = key.split('/');
      this.forget(namespace, name);
      return {};
    }
    try {
      if (project.metadata.deletionTimestamp) return await this.finalize(project, signal);
      if (!(project.metadata.finalizers as string[] | undefined)?.includes(PROJECT_FINALIZER)) {
        // the finalizer write brings the Project back through the watch
        await this.setFinalizer(project, true);
        return {};
      }
      const parsed = projectIntent(project);
      if (!parsed.ok) {
        await this.writeStatus(project, statusInvalid(project.status, project.metadata.generation, new Date(this.now()), parsed.problems));
        this.event(project, { type: 'Warning', reason: 'InvalidProject', message: parsed.problems.join('; ') });
        return {};
      }
      const intent = parsed.intent;
      if (intent.suspended) {
        this.noteSuspended(project, key, intent);
        return {};
      }
      const resumed = this.schedules.get(key);
      if (resumed?.suspendedNoted) {
        // resuming runs at once, as `timoni project resume` expects
        resumed.suspendedNoted = false;
        resumed.dueAt = 0;
      }
      return await this.reconcileActive(project, key, intent, signal);
    } catch (err) {
      if (err instanceof NotFoundError) return {};
      return { error: err instanceof Error ? err : new Error(String(err)) };
    }
  }

  private async reconcileActive(project: ProjectResource, key: string, intent: ProjectIntent, signal: AbortSignal): Promise<ReconcileOutcome> {
    const status = project.status ?? {};
    const now = this.now();
    const schedule = this.schedules.get(key) ?? this.restoreSchedule(status, now);
    this.schedules.set(key, schedule);
    const specChanged = schedule.generation !== project.metadata.generation;
    const requested = intent.requestedAt !== undefined && intent.requestedAt !== schedule.request;
    let due = specChanged || requested || now >= schedule.dueAt;
    let digest: string | undefined;
    if (intent.pinnedDigest) {
      // the hub chose the digest (a rollout wave may hold it back): no tag poll
      digest = intent.pinnedDigest;
      due ||= digest !== revisionDigest(status.lastAttemptedRevision);
    } else if (!due && now >= schedule.pollAt) {
      schedule.pollAt = now + this.settings.pollIntervalMs;
      try {
        digest = await this.deps.runtime.resolveDigest(intent.spec, { manager: this.deps.manager }, signal);
        due = digest !== revisionDigest(status.lastAttemptedRevision);
        if (due) this.deps.log.info('new digest under the tag', { project: key, tag: intent.spec.source.tag, digest });
      } catch (err) {
        // the run itself reports registry trouble in the status; a poll only logs it
        this.deps.log.warn('tag poll failed', { project: key, error: err instanceof Error ? err.message : String(err) });
      }
    }
    if (!due) return { requeueAfterMs: Math.max(0, Math.min(schedule.dueAt, schedule.pollAt) - now) };
    return this.run(project, key, intent, schedule, digest, signal);
  }

  /** Says once that a Project is suspended, and again for each reconcile request it does not handle. */
  private noteSuspended(project: ProjectResource, key: string, intent: ProjectIntent): void {
    const schedule = this.schedules.get(key) ?? this.restoreSchedule(project.status ?? {}, this.now());
    this.schedules.set(key, schedule);
    const request = intent.requestedAt !== undefined && intent.requestedAt !== schedule.request && intent.requestedAt !== schedule.refusedRequest ? intent.requestedAt : undefined;
    if (schedule.suspendedNoted && request === undefined) return;
    schedule.suspendedNoted = true;
    if (request !== undefined) schedule.refusedRequest = request;
    const message = request !== undefined
      ? `reconcile request "${request}" not handled: the Project is suspended (annotation ${SUSPEND_ANNOTATION})`
      : `reconciliation suspended by annotation ${SUSPEND_ANNOTATION}; nothing is applied, pruned or polled until it is removed`;
    this.event(project, { type: 'Normal', reason: 'Suspended', message });
    this.deps.log.info('project suspended', { project: key, request });
  }

  private restoreSchedule(status: ProjectResourceStatus, now: number): Schedule {
    const dueAt = status.nextReconcileAt ? Date.parse(status.nextReconcileAt) : now;
    return { attempt: status.failures ?? 0, dueAt: Number.isFinite(dueAt) ? dueAt : now, pollAt: now, generation: status.observedGeneration, request: status.lastHandledReconcileAt };
  }

  private async run(project: ProjectResource, key: string, intent: ProjectIntent, schedule: Schedule, digest: string | undefined, signal: AbortSignal): Promise<ReconcileOutcome> {
    const generation = project.metadata.generation;
    const revision = digest ? formatRevision(intent.spec.source.tag, digest) : undefined;
    // what ran before this run: for the service events, and the Project's first run is its creation
    const histories = serviceHistories(project.status);
    // the outbox is written before the status that reports what the events say
    const written: Array<Promise<void>> = [];
    const observed = project.status?.observedGeneration;
    if (observed === undefined) written.push(this.cdevent(project, { kind: 'environment.created', reason: 'Created', message: 'Project seen for the first time' }));
    else if (generation !== undefined && observed !== generation) written.push(this.cdevent(project, { kind: 'environment.modified', reason: 'SpecChanged', message: `spec changed (generation ${observed} to ${generation})` }));
    await Promise.all(written.splice(0));
    const attemptBefore = schedule.attempt;
    await this.writeStatus(project, statusReconciling(project.status, generation, new Date(this.now()), revision));
    const source = intent.spec.source.repository;
    const result = await this.deps.runtime.reconcile(
      { project: intent.spec, cluster: this.settings.cluster, digest, owner: this.settings.owner, knownNamespaces: project.status?.namespaces ?? [], signal },
      {
        manager: this.deps.manager,
        hooks: {
          instanceApplied: (e) => void written.push(this.instanceDone(project, source, e.context.revision, appliedInstance(e.instance), histories)),
          instancePruned: (e) => void written.push(this.instanceDone(project, source, e.context.revision, removedInstance(e.instance, 'pruned'), histories)),
        },
      },
    );
    // stopping or no longer leading: whoever runs next owns the status; an abort is no verdict on the Project
    if (signal.aborted) return {};
    const report = buildRunReport(result, { attempt: schedule.attempt, intervalMs: this.intervalOf(project), backoff: this.settings.backoff, healthRecheckMs: this.settings.healthRecheckMs, previous: (project.status?.conditions ?? []) as Condition[] });
    const about = { ...(revision ? { revision } : {}), message: resultText(report).message };
    if (!report.ok && attemptBefore === 0) written.push(this.cdevent(project, { kind: 'incident.detected', reason: report.errors[0]?.reason ?? 'ReconciliationFailed', error: report.errors[0]?.message ?? 'reconciliation failed', ...about }));
    else if (report.ok && attemptBefore > 0) written.push(this.cdevent(project, { kind: 'incident.resolved', reason: 'Recovered', ...about }));
    await Promise.all(written);
    await this.writeStatus(project, statusAfterRun(report, generation, project.status, intent.requestedAt));
    schedule.attempt = report.decision.attempt;
    schedule.generation = generation;
    if (intent.requestedAt !== undefined) schedule.request = intent.requestedAt;
    schedule.dueAt = Date.parse(report.finishedAt) + report.decision.afterMs;
    schedule.pollAt = this.now() + this.settings.pollIntervalMs;
    this.event(project, resultText(report), report.revision ? { 'project.timoni.sh/revision': report.revision } : {});
    this.deps.onRun?.(project, report);
    this.deps.log.info('project reconciled', { project: key, revision: report.revision, ok: report.ok, next: report.decision.action, durationMs: report.durationMs });
    return { requeueAfterMs: Math.max(0, Math.min(schedule.dueAt, schedule.pollAt) - this.now()), ran: report };
  }

  /** Deletion: the instances go (unless orphaned), then the finalizer, then the Project. */
  private async finalize(project: ProjectResource, signal: AbortSignal): Promise<ReconcileOutcome> {
    if (!(project.metadata.finalizers as string[] | undefined)?.includes(PROJECT_FINALIZER)) return {};
    const parsed = projectIntent(project);
    const key = projectKey(project);
    if (parsed.ok && parsed.intent.deletionPolicy === 'Orphan') {
      this.event(project, { type: 'Normal', reason: 'InstancesOrphaned', message: 'deletion policy Orphan: the instances stay in the cluster' });
      await this.setFinalizer(project, false);
      this.forget(project.metadata.namespace ?? '', project.metadata.name);
      return {};
    }
    const spec = parsed.ok ? parsed.intent.spec : projectSpecOf(project);
    const source = spec.source.repository;
    const written: Array<Promise<void>> = [];
    const result = await this.deps.runtime.deleteProject(
      { project: spec, cluster: this.settings.cluster, digest: revisionDigest(project.status?.lastAppliedRevision), owner: this.settings.owner, knownNamespaces: project.status?.namespaces ?? [], signal },
      { manager: this.deps.manager, hooks: { instancePruned: (e) => void written.push(this.instanceDone(project, source, e.context.revision, removedInstance(e.instance, 'deleted'))) } },
    );
    await Promise.all(written);
    if (signal.aborted) return {};
    const schedule = this.schedules.get(key) ?? { attempt: project.status?.failures ?? 0, dueAt: 0, pollAt: 0 };
    this.schedules.set(key, schedule);
    const report = buildRunReport(result, { attempt: schedule.attempt, intervalMs: this.intervalOf(project), backoff: this.settings.backoff, healthRecheckMs: this.settings.healthRecheckMs, previous: (project.status?.conditions ?? []) as Condition[] }, 'delete');
    this.deps.onRun?.(project, report);
    if (!report.ok) {
      schedule.attempt = report.decision.attempt;
      await this.writeStatus(project, statusAfterRun(report, project.metadata.generation, project.status, undefined));
      this.event(project, resultText(report));
      return { requeueAfterMs: report.decision.afterMs, ran: report };
    }
    this.event(project, { type: 'Normal', reason: 'ProjectDeleted', message: `deleted ${report.removed.length} instance(s)` });
    await this.cdevent(project, { kind: 'environment.deleted', reason: 'ProjectDeleted', message: `deleted ${report.removed.length} instance(s)` });
    await this.setFinalizer(project, false);
    this.forget(project.metadata.namespace ?? '', project.metadata.name);
    return { ran: report };
  }

  /** Records what happened to an instance; resolves once its CDEvent (if any) is in the outbox. */
  private instanceDone(project: ProjectResource, source: string, revision: string | undefined, instance: ReportInstance, histories: ReadonlyMap<string, InstanceHistory> = new Map()): Promise<void> {
    this.deps.events.record(instanceEvent(project, instance, revision, new Date(this.now()), this.settings.identity));
    const p = { name: project.metadata.name, namespace: project.metadata.namespace ?? '' };
    if (instance.action === 'applied') this.deps.metrics.recordInstance({ ...p, source, revision: revision ?? '' }, instance);
    else if (!instance.error) this.deps.metrics.forgetInstance(p, instance);
    const change = instance.error ? null : instance.action !== 'applied' ? 'removed' : revision ? serviceChange(histories.get(`${instance.namespace}/${instance.name}`), revision) : null;
    if (!change) return Promise.resolve();
    return this.cdevent(project, { kind: `service.${change}`, reason: instance.action, message: `instance ${instance.namespace}/${instance.name} ${instance.action}`, ...(revision ? { revision } : {}), instance: { name: instance.name, namespace: instance.namespace, component: instance.component } });
  }

  /** Puts a CDEvent in the outbox of the Project's sink, when it names one; resolves once it is written. */
  private cdevent(project: ProjectResource, facts: Pick<EventFacts, 'kind' | 'reason' | 'message'> & Partial<Pick<EventFacts, 'revision' | 'instance' | 'error'>>): Promise<void> {
    const sink = project.spec?.cdevents?.sink;
    if (!sink || !this.deps.cdevents) return Promise.resolve();
    const header = project.spec.cdevents?.header;
    const project_ = { name: project.metadata.name, namespace: project.metadata.namespace ?? '' };
    return this.deps.cdevents.emit(projectKey(project), { sink, ...(header ? { header } : {}) }, { ...facts, project: project_, repository: project.spec.source.repository, cluster: this.settings.cluster.name });
  }

  private event(project: ProjectResource, text: EventText, annotations: Record<string, string> = {}): void {
    this.deps.events.record(projectEvent(project, text, new Date(this.now()), this.settings.identity, annotations));
  }

  /** Merge patch of the status subresource (only the leader writes it). */
  private async writeStatus(project: ProjectResource, status: ProjectResourceStatus): Promise<void> {
    const patched = await this.client.patch(address(project), { status }, 'merge', { subresource: 'status', fieldManager: FIELD_MANAGER });
    project.status = (patched as ProjectResource).status;
    project.metadata.resourceVersion = patched.metadata.resourceVersion;
  }

  /** Adds or removes the finalizer on the resourceVersion read: a concurrent writer makes it a conflict, retried. */
  private async setFinalizer(project: ProjectResource, present: boolean): Promise<void> {
    const current = (project.metadata.finalizers as string[] | undefined) ?? [];
    const finalizers = present ? [...current, PROJECT_FINALIZER] : current.filter((f) => f !== PROJECT_FINALIZER);
    try {
      await this.client.patch(address(project), { metadata: { finalizers, resourceVersion: project.metadata.resourceVersion } }, 'merge', { fieldManager: FIELD_MANAGER });
    } catch (err) {
      if (err instanceof ConflictError) throw new Error(`Project ${projectKey(project)} changed while its finalizer was being ${present ? 'added' : 'removed'}; retrying`, { cause: err });
      throw err;
    }
  }
}

const FIELD_MANAGER = 'flotilla-agent';

function address(project: ProjectResource) {
  return { apiVersion: PROJECT_API_VERSION, kind: PROJECT_KIND, namespace: project.metadata.namespace, name: project.metadata.name };
}

function resultText(report: RunReport): EventText {
  const ready = report.conditions.find((c) => c.type === 'Ready');
  if (report.ok) {
    const verb = report.kind === 'delete' ? 'deleted' : 'reconciled';
    const c = report.counts;
    return { type: 'Normal', reason: ready?.reason ?? 'ReconciliationSucceeded', message: `${report.revision ?? 'project'} ${verb} in ${report.durationMs} ms: created ${c.created}, configured ${c.configured}, unchanged ${c.unchanged}, deleted ${c.deleted}` };
  }
  const next = report.decision.action === 'done' ? '' : `; next attempt in ${Math.round(report.decision.afterMs / 1000)} s`;
  return { type: 'Warning', reason: ready?.reason ?? report.errors[0]?.reason ?? 'ReconciliationFailed', message: `${ready?.message ?? report.errors[0]?.message ?? 'reconciliation failed'}${next}` };
}

/**
 * What each instance runs, from the status the last run left: an instance
 * listed there runs the last applied revision, and ran the Project's earlier
 * applied revisions (status.appliedRevisions) before it; applying one of
 * those again is a rollback.
 */
function serviceHistories(status: ProjectResourceStatus | undefined): Map<string, InstanceHistory> {
  const histories = new Map<string, InstanceHistory>();
  const current = status?.lastAppliedRevision ?? null;
  const earlier = new Set((status?.appliedRevisions ?? []).filter((r) => r !== current));
  for (const c of status?.components ?? []) for (const i of c.instances) if (!i.error) histories.set(`${i.namespace}/${i.name}`, { current, earlier });
  return histories;
}
