import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { CredentialsService } from '../credentials/credentials.service';
import { HUB_LOGGER } from '../logging/logging.module';
import { ProjectsRepository } from '../projects/projects.repository';
import { HistoryRepository } from '../targeting/history.repository';
import { TargetsRepository } from '../targeting/targets.repository';
import { openRegistryCredentials } from './registry-credentials';
import { targetsToAdvance } from './rollout';
import { SchedulerMetrics } from './scheduler.metrics';
import { type DueSource, SchedulerRepository } from './scheduler.repository';
import { TAG_RESOLVER, type TagResolver } from './tag-resolver';

/** Projects checked per tick; the rest wait for the next one. */
const SOURCES_PER_TICK = 500;

export interface PollResult {
  /** registry round trips made (one per repository + tag + credentials) */
  resolutions: number;
  /** Projects whose digest changed */
  changed: string[];
}

/**
 * Resolves each due Project's tag to a digest: one registry round trip per
 * repository + tag (+ credentials) however many Projects and Targets share
 * it. A new digest makes the Targets of the open rollout wave due at once.
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
    const changed: string[] = [];
    await Promise.all(
      [...groups.values()].map(async (members) => {
        const first = members[0];
        let digest: string;
        try {
          const creds = await openRegistryCredentials(this.credentials, first.registryCredentialId);
          digest = await this.resolver.resolve(first.repository, first.tag, creds);
          this.metrics.tagResolutions.inc({ result: 'success' });
        } catch (err) {
          this.metrics.tagResolutions.inc({ result: 'failure' });
          const message = `cannot resolve ${first.repository}:${first.tag}: ${err instanceof Error ? err.message : String(err)}`;
          await this.repo.recordSourceError(members.map((m) => m.id), message);
          for (const m of members.filter((m) => m.error !== message)) {
            await this.history.recordEvent({ projectId: m.id, clusterName: null, type: 'Warning', reason: 'SourceResolveFailed', message });
          }
          this.logger.warn({ project: members.map((m) => m.name), err: message }, 'tag resolution failed');
          return;
        }
        await this.repo.recordDigest(members.map((m) => m.id), digest);
        for (const m of members.filter((m) => m.digest !== digest)) {
          changed.push(m.name);
          await this.onNewDigest(m, digest);
        }
      }),
    );
    return { resolutions: groups.size, changed };
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
