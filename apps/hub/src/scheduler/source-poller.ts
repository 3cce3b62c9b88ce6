import type { ResolvedCredentials } from '@flotilla/engine';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { CredentialsService } from '../credentials/credentials.service';
import { HUB_LOGGER } from '../logging/logging.module';
import { ProjectsRepository } from '../repositories/projects.repository';
import { HistoryRepository } from '../repositories/history.repository';
import { TargetsRepository } from '../repositories/targets.repository';
import { isAuthRefusal, PullSecretReader } from './pull-secret-credentials';
import { pushConnection } from './push-connection';
import { openRegistryCredentials } from './registry-credentials';
import { targetsToAdvance } from './rollout';
import { SchedulerMetrics } from './scheduler.metrics';
import { type DueSource, SchedulerRepository } from './scheduler.repository';
import { TAG_RESOLVER, type TagResolver } from './tag-resolver';

/** Projects checked per tick; the rest wait for the next one. */
const SOURCES_PER_TICK = 500;

/** State of one poll: counters and the pull secrets read so far. */
interface Poll {
  resolutions: number;
  changed: string[];
  pullSecrets: PullSecretReader;
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
 */
@Injectable()
export class SourcePoller {
  constructor(
    private readonly repo: SchedulerRepository,
    private readonly credentials: CredentialsService,
    private readonly projects: ProjectsRepository,
    private readonly targets: TargetsRepository,
    private readonly history: HistoryRepository,
    private readonly metrics: SchedulerMetrics,
    @Inject(TAG_RESOLVER) private readonly resolver: TagResolver,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
  ) {}

  async poll(): Promise<PollResult> {
    const due = await this.repo.claimDueSources(this.config.scheduler.sourcePollMs, SOURCES_PER_TICK);
    if (due.length === 0) return { resolutions: 0, changed: [] };
    const fingerprints = await this.credentials.summaries(due.map((d) => d.registryCredentialId));
    const groups = new Map<string, DueSource[]>();
    for (const d of due) {
      const fp = d.registryCredentialId ? (fingerprints.get(d.registryCredentialId)?.fingerprint ?? d.registryCredentialId) : '';
      const key = `${d.repository}\u0000${d.tag}\u0000${fp}`;
      groups.set(key, [...(groups.get(key) ?? []), d]);
    }
    const poll: Poll = { resolutions: 0, changed: [], pullSecrets: new PullSecretReader(
        (c) => pushConnection(this.credentials, c),
        (e) => this.metrics.observeKubeRequest(e),
      ), };
    await Promise.all([...groups.values()].map((members) => this.resolveGroup(poll, members)));
    return { resolutions: poll.resolutions, changed: poll.changed };
  }

  /** One registry round trip for the group; Projects without credentials of their own fall back to pull secrets when refused. */
  private async resolveGroup(poll: Poll, members: DueSource[]): Promise<void> {
    const first = members[0];
    let digest: string;
    try {
      const creds = await openRegistryCredentials(this.credentials, first.registryCredentialId);
      poll.resolutions++;
      digest = await this.resolver.resolve(first.repository, first.tag, creds);
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
          digest = await this.resolver.resolve(first.repository, first.tag, { kind: 'source', source: group.source });
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
    for (const m of members.filter((m) => m.digest !== digest)) {
      poll.changed.push(m.name);
      await this.onNewDigest(m, digest);
    }
  }

  private async recordFailure(members: DueSource[], message: string): Promise<void> {
    await this.repo.recordSourceError(members.map((m) => m.id), message);
    for (const m of members.filter((m) => m.error !== message)) {
      await this.history.recordEvent({ projectId: m.id, clusterName: null, type: 'Warning', reason: 'SourceResolveFailed', message });
    }
    this.logger.warn({ project: members.map((m) => m.name), err: message }, 'tag resolution failed');
  }

  private async onNewDigest(source: DueSource, digest: string): Promise<void> {
    const revision = `${source.tag}@${digest}`;
    const project = await this.projects.findById(source.id);
    if (!project) return;
    const targets = await this.targets.forProject(project.id);
    const members = targets.map((t) => ({ id: t.id, group: t.cluster?.groupName ?? '', phase: t.phase, lastAppliedRevision: t.lastAppliedRevision }));
    await this.targets.triggerNow(targetsToAdvance(project.rolloutGroups, revision, members));
    const message = source.digest ? `${source.repository}:${source.tag} moved to ${digest}` : `${source.repository}:${source.tag} resolved to ${digest}`;
    await this.history.recordEvent({ projectId: project.id, clusterName: null, type: 'Normal', reason: 'NewRevision', message });
  }
}
