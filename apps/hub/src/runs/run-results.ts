import { instanceHistories, type InstanceHistory } from '@flotilla/cdevents';
import { instanceEventText, reportedInstances, type RunReport } from '@flotilla/engine';
import { Injectable } from '@nestjs/common';
import type { ClusterEntity, ProjectEntity, TargetEntity } from '../database/entities';
import { EventsService } from '../events/events.service';
import type { HubEvent } from '../events/hub-event';
import { CdeventOutboxRepository } from '../repositories/cdevent-outbox.repository';
import type { Transaction } from '../repositories/unit-of-work';
import { RunMetrics } from './run-metrics';
import { serviceEventOf } from './service-event';

/** What a finished run's record needs to know besides its report. */
export interface FinishedRun {
  project: ProjectEntity;
  cluster: Pick<ClusterEntity, 'name'>;
  /** the Target as it was before the run's result: its failed attempts decide the incident events */
  target: Pick<TargetEntity, 'attempt'>;
  report: RunReport;
  revision: string | null;
  /** the instances' past runs, read before this run's row was written (RunResults.historiesBefore) */
  histories: ReadonlyMap<string, InstanceHistory>;
  /** the runner wrote the instance events in its cluster itself (an agent does) */
  inCluster?: boolean;
}

/**
 * What every stored run causes besides its Run row, whoever ran it (the
 * hub's engine for a push cluster, the agent for its own): one event per
 * instance with its service CDEvent, the incident events, the metrics.
 * Written in the transaction of the run's result, so a run that is not
 * stored leaves no events either.
 */
@Injectable()
export class RunResults {
  constructor(
    private readonly events: EventsService,
    private readonly cdevents: CdeventOutboxRepository,
    private readonly metrics: RunMetrics,
  ) {}

  /** The service events are decided from the instances' past runs: read once, and only for a Project with a sink. */
  async historiesBefore(project: Pick<ProjectEntity, 'cdeventsSink'>, targetId: string): Promise<Map<string, InstanceHistory>> {
    return instanceHistories(project.cdeventsSink ? await this.cdevents.pastRuns(targetId) : []);
  }

  async record(run: FinishedRun, tx: Transaction): Promise<void> {
    await this.recordAll([run], tx);
  }

  /** Many runs' records in one go (a batch of agent reports), their events in one statement. */
  async recordAll(runs: readonly FinishedRun[], tx: Transaction): Promise<void> {
    const events: HubEvent[] = [];
    const observations: Array<() => void> = [];
    for (const run of runs) {
      const { project, cluster, report, revision } = run;
      observations.push(() => this.metrics.observeRun(report.ok, report.durationMs / 1000));
      const context = { project: { name: project.name, namespace: project.namespace, source: project.sourceRepository }, cluster: cluster.name, revision: revision ?? '' };
      for (const i of reportedInstances(report)) {
        observations.push(() => this.metrics.observeInstance(context, i));
        const cdevent = project.cdeventsSink ? serviceEventOf(run.histories, i, revision) : undefined;
        events.push({ projectId: project.id, clusterName: cluster.name, ...instanceEventText(i), ...(revision ? { revision } : {}), component: i.component, instance: i.name, namespace: i.namespace, ...(cdevent ? { cdevent } : {}), ...(run.inCluster ? { inCluster: true } : {}) });
      }
      const incident = incidentOf(run);
      if (incident) events.push(incident);
    }
    await this.events.recordAll(events, tx);
    // counted once stored: a transaction run again (or rolled back) counts nothing twice
    tx.afterCommit(() => observations.forEach((observe) => observe()));
  }
}

/** The first failure after a success is an incident detected; the first success after failures, an incident resolved. */
function incidentOf({ project, cluster, target, report, revision }: FinishedRun): HubEvent | undefined {
  const about = { projectId: project.id, clusterName: cluster.name, ...(revision ? { revision } : {}) };
  if (!report.ok) {
    const first = report.errors[0];
    const detected = target.attempt === 0 ? { cdevent: 'incident.detected' as const } : {};
    return { ...about, type: 'Warning', reason: first?.reason ?? 'ReconciliationFailed', message: first?.message ?? 'reconciliation failed', ...detected };
  }
  if (target.attempt > 0) {
    const message = `reconciled again${revision ? ` on ${revision}` : ''} after ${target.attempt} failed attempt${target.attempt === 1 ? '' : 's'}`;
    return { ...about, type: 'Normal', reason: 'Recovered', message, cdevent: 'incident.resolved' };
  }
  return undefined;
}
