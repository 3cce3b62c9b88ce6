import type { ResolvedCredentials } from '@flotilla/engine';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { HUB_CONFIG } from '../../config/config.module';
import type { HubConfig } from '../../config/hub-config';
import { CredentialsService } from '../../credentials/credentials.service';
import { HUB_LOGGER } from '../../logging/logging.module';
import { ProjectsRepository } from '../../repositories/projects.repository';
import { EventsService } from '../../events/events.service';
import { TargetsRepository } from '../../repositories/targets.repository';
import { isAuthRefusal, PullSecretReader } from './pull-secret-credentials';
import { pushConnection } from '../push-connection';
import { PushConnections } from '../push-connections';
import { openRegistryCredentials } from '../../credentials/registry-credentials';
import { Clock } from '../../common/clock';
import { decideRollout, heldBack, targetsToAdvance } from '../../rollout/rollout';
import { waveMember } from '../../rollout/run-plan';
import { rolloutOptions } from '../../rollout/rollout-options';
import { wavesOf } from '../../rollout/wave-spec';
import { SchedulerMetrics } from '../scheduler.metrics';
import { Limiter } from '@flotilla/engine';
import { type DueSource, SourcesRepository } from './sources.repository';
import { TAG_RESOLVER, type TagResolver } from './tag-resolver';
import { RunWakeup } from '../../notify/run-wakeup';
import { WaveAnnouncer } from '../../rollout/wave-announcer';

/** Projects checked per poll; the rest wait for the next one. */
const SOURCES_PER_POLL = 500;

/** State of one poll: counters, the pull secrets read so far, and its abort signal. */
interface Poll {
  resolutions: number;
  changed: string[];
  pullSecrets: PullSecretReader;
  signal: AbortSignal;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

export interface PollResult {
  /** registry round trips made (one per repository + tag + credentials) */
  resolutions: number;
  /** Projects whose digest changed */
  changed: string[];
}

/**
 * Resolves each due Project's tag to a digest: one registry round trip per
 * repository + tag (+ credentials) however many Projects and Targets share
 * it. A Project without credentials of its own that the registry refuses is
 * tried again with its service account's image pull secrets from one of its
 * push clusters. A new digest makes the Targets of the open rollout wave due at once.
 *
 * The scheduler's tick only kicks a poll off: resolutions run beside it with
 * bounded concurrency, each under the registry client's total deadline, so a
 * slow registry holds back neither claims nor shutdown.
 */
@Injectable()
export class SourcePoller {
  /** a claim of due sources in progress (one at a time) */
  private claiming: Promise<unknown> | undefined;
  /** resolutions in flight, by repository + tag + credentials: a slow one is not started twice */
  private readonly inFlight = new Map<string, Promise<void>>();
  /** resolutions started by triggers, awaited at stop like the poll's */
  private readonly triggered = new Set<Promise<unknown>>();
  /** every resolution in flight, poll's or trigger's, by Project: one Project never resolves twice at once */
  private readonly byProject = new Map<string, Promise<unknown>>();
  private readonly limiter: Limiter;
  private readonly stopping = new AbortController();

  constructor(
    private readonly repo: SourcesRepository,
    private readonly credentials: CredentialsService,
    private readonly projects: ProjectsRepository,
    private readonly targets: TargetsRepository,
    private readonly events: EventsService,
    private readonly metrics: SchedulerMetrics,
    @Inject(TAG_RESOLVER) private readonly resolver: TagResolver,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
    private readonly wakeup: RunWakeup,
    private readonly connections: PushConnections,
    private readonly clock: Clock,
    private readonly announcer: WaveAnnouncer,
  ) {
    this.limiter = new Limiter(config.scheduler.sourceConcurrency);
  }

  /** Claims due sources and starts their resolutions; never waits for them. */
  kick(): void {
    if (this.claiming || this.stopping.signal.aborted) return;
    this.claiming = this.start()
      .catch((err: unknown) => this.logger.error({ err: messageOf(err) }, 'source poll failed'))
      .finally(() => (this.claiming = undefined));
  }

  /** Aborts resolutions in flight and waits for them to end. */
  async stop(): Promise<void> {
    this.stopping.abort(new Error('the hub is shutting down'));
    await this.claiming;
    await Promise.allSettled([...this.inFlight.values(), ...this.triggered]);
  }

  /** One poll, awaited to the end of the resolutions it started (the tick uses `kick`; tests call this). */
  async poll(): Promise<PollResult> {
    const { poll, started } = await this.start();
    await Promise.all(started);
    return { resolutions: poll.resolutions, changed: poll.changed };
  }

  /**
   * Resolves one Project's tag now, outside the poll's schedule (a trigger):
   * a new digest makes its Targets due as a poll would. Resolves once the
   * digest or the error is recorded; false when the Project cannot be
   * resolved now (gone, suspended, being deleted, or the hub stopping).
   */
  async resolveNow(projectId: string): Promise<boolean> {
    if (this.stopping.signal.aborted) return false;
    // one already in flight answers this trigger too
    const running = this.byProject.get(projectId);
    if (running) {
      await running;
      return true;
    }
    const work = (async () => {
      const source = await this.repo.claimSource(projectId);
      if (!source) return false;
      // bounded with the poll's own resolutions: a burst of triggers cannot flood the registry
      const poll = this.newPoll();
      await this.limiter.run(() => (poll.signal.aborted ? Promise.resolve() : this.resolveGroup(poll, [source])));
      return true;
    })();
    this.triggered.add(work);
    this.byProject.set(projectId, work);
    try {
      return await work;
    } finally {
      this.triggered.delete(work);
      if (this.byProject.get(projectId) === work) this.byProject.delete(projectId);
    }
  }

  private newPoll(): Poll {
    return {
      resolutions: 0,
      changed: [],
      pullSecrets: new PullSecretReader(async (c) => {
        const credentials = await pushConnection(this.credentials, c);
        return credentials && this.connections.lease(c.id, credentials);
      }),
      signal: this.stopping.signal,
    };
  }

  private async start(): Promise<{ poll: Poll; started: Promise<void>[] }> {
    const due = await this.repo.claimDueSources(this.config.scheduler.sourcePollMs, SOURCES_PER_POLL);
    const fingerprints = await this.credentials.summaries(due.map((d) => d.registryCredentialId));
    const groups = new Map<string, DueSource[]>();
    for (const d of due) {
      const fp = d.registryCredentialId ? (fingerprints.get(d.registryCredentialId)?.fingerprint ?? d.registryCredentialId) : '';
      const key = `${d.repository}\u0000${d.tag}\u0000${fp}`;
      groups.set(key, [...(groups.get(key) ?? []), d]);
    }
    const poll = this.newPoll();
    const started: Promise<void>[] = [];
    for (const [key, claimed] of groups) {
      // a Project a trigger is resolving right now is left to it
      const members = claimed.filter((m) => !this.byProject.has(m.id));
      if (members.length === 0 || this.inFlight.has(key) || poll.signal.aborted) continue;
      const resolution = this.limiter
        .run(() => (poll.signal.aborted ? Promise.resolve() : this.resolveGroup(poll, members)))
        .catch((err: unknown) => this.logger.error({ project: members.map((m) => m.name), err: messageOf(err) }, 'tag resolution failed unexpectedly'))
        .finally(() => {
          this.inFlight.delete(key);
          for (const m of members) if (this.byProject.get(m.id) === resolution) this.byProject.delete(m.id);
        });
      this.inFlight.set(key, resolution);
      for (const m of members) this.byProject.set(m.id, resolution);
      started.push(resolution);
    }
    return { poll, started };
  }

  /** One registry round trip for the group; Projects without credentials of their own fall back to pull secrets when refused. */
  private async resolveGroup(poll: Poll, members: DueSource[]): Promise<void> {
    const first = members[0];
    let digest: string;
    try {
      const creds = await openRegistryCredentials(this.credentials, first.registryCredentialId, first.repository);
      poll.resolutions++;
      digest = await this.resolver.resolve(first.repository, first.tag, creds, poll.signal);
      this.metrics.tagResolutions.inc({ result: 'success' });
    } catch (err) {
      this.metrics.tagResolutions.inc({ result: 'failure' });
      if (!first.registryCredentialId && isAuthRefusal(err)) return this.resolveWithPullSecrets(poll, members, err);
      return this.recordFailure(members, `cannot resolve ${first.repository}:${first.tag}: ${messageOf(err)}`);
    }
    await this.recordResolved(poll, members, digest);
  }

  /**
   * Regroups the members by the pull secrets found for each (so Projects only
   * share a resolution made with the same credentials) and resolves each group once.
   */
  private async resolveWithPullSecrets(poll: Poll, members: DueSource[], anonymousErr: unknown): Promise<void> {
    const first = members[0];
    const refused = `cannot resolve ${first.repository}:${first.tag}: ${messageOf(anonymousErr)}; Project credentials: none`;
    const bySecrets = new Map<string, { members: DueSource[]; source: ResolvedCredentials['source']; where: string }>();
    await Promise.all(
      members.map(async (m) => {
        const clusters = (await this.targets.forProject(m.id)).flatMap((t) => (t.cluster ? [t.cluster] : []));
        const found = await poll.pullSecrets.lookup(m, clusters);
        if (!found.found) return this.recordFailure([m], `${refused}; ${found.tried.join('; ')}`);
        const group = bySecrets.get(found.credentials.fingerprint) ?? { members: [], source: found.credentials.source, where: `pull secrets of ${m.namespace}/${m.serviceAccountName} in cluster ${found.cluster}` };
        group.members.push(m);
        bySecrets.set(found.credentials.fingerprint, group);
      }),
    );
    await Promise.all(
      [...bySecrets.values()].map(async (group) => {
        let digest: string;
        try {
          poll.resolutions++;
          digest = await this.resolver.resolve(first.repository, first.tag, { kind: 'source', source: group.source }, poll.signal);
          this.metrics.tagResolutions.inc({ result: 'success' });
        } catch (err) {
          this.metrics.tagResolutions.inc({ result: 'failure' });
          return this.recordFailure(group.members, `${refused}; with ${group.where}: ${messageOf(err)}`);
        }
        await this.recordResolved(poll, group.members, digest);
      }),
    );
  }

  private async recordResolved(poll: Poll, members: DueSource[], digest: string): Promise<void> {
    await this.repo.recordDigest(members.map((m) => m.id), digest);
    const moved = members.filter((m) => m.digest !== digest);
    for (const m of moved) {
      poll.changed.push(m.name);
      await this.onNewDigest(m, digest);
    }
    // a new digest is a trigger: its Targets run now, not at the next tick
    if (moved.length > 0) this.wakeup.wake();
  }

  private async recordFailure(members: DueSource[], message: string): Promise<void> {
    await this.repo.recordSourceError(members.map((m) => m.id), message);
    for (const m of members.filter((m) => m.error !== message)) {
      await this.events.record({ projectId: m.id, clusterName: null, type: 'Warning', reason: 'SourceResolveFailed', message });
    }
    this.logger.warn({ project: members.map((m) => m.name), err: message }, 'tag resolution failed');
  }

  private async onNewDigest(source: DueSource, digest: string): Promise<void> {
    const revision = `${source.tag}@${digest}`;
    const project = await this.projects.findById(source.id);
    if (!project) return;
    let held: string | undefined;
    if (project.rolloutGroups.length === 0) {
      // no waves: nothing to decide per Target, and a fleet's Targets are not read on the way to their runs
      await this.targets.advanceProject(project.id, revision);
    } else {
      const targets = (await this.targets.forProject(project.id)).filter((t) => !t.removalRequestedAt);
      const members = targets.map((t) => waveMember(t, t.cluster?.groupName ?? ''));
      const waves = wavesOf(project);
      const decision = decideRollout(waves, revision, members, this.clock.now(), rolloutOptions(project, revision, this.clock.now()));
      // the first wave opens now: told before any of its Targets can report a later state
      await this.announcer.announce(project, revision, decision);
      await this.targets.advanceTo(targetsToAdvance(decision, members), revision);
      held = heldBack(waves, decision, members);
    }
    const message = source.digest ? `${source.repository}:${source.tag} moved to ${digest}` : `${source.repository}:${source.tag} resolved to ${digest}`;
    await this.events.record({ projectId: project.id, clusterName: null, type: 'Normal', reason: 'NewRevision', message, revision });
    if (held) await this.events.record({ projectId: project.id, clusterName: null, type: 'Normal', reason: 'RolloutWaiting', message: held, revision });
  }
}
