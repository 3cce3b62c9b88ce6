// The fleet diff: one server-side dry run per Target, a few at a time, all
// under one deadline, through the same engine the scheduler's runs use.
// Bad input is refused before any cluster is contacted; a cluster that fails
// or runs out of time is reported in the answer, not as an error of the call.
import { Inject, Injectable } from '@nestjs/common';
import { ArchiveError, EngineError, readSourceArchive, type ProjectDiff, type SourceFiles } from '@flotilla/engine';
import { InvalidInputError, NotFoundError } from '../../common/errors';
import { CredentialsService } from '../../credentials/credentials.service';
import type { ProjectEntity, TargetEntity, TenantEntity } from '../../database/entities';
import { TargetsRepository } from '../../repositories/targets.repository';
import { TenantsRepository } from '../../repositories/tenants.repository';
import { pushConnection } from '../../scheduler/push-connection';
import { openRegistryCredentials } from '../../credentials/registry-credentials';
import { TARGET_RUNNER, type TargetRunner } from '../../scheduler/target-runner';
import { runProject } from '../engine-project';
import { ProjectsService } from '../projects.service';
import { AGENT_DIFFER, type AgentDiffer } from './agent-diff';
import { boundedFanout } from './bounded-fanout';
import type { ClusterDiffDto, ProjectDiffDto, ProjectDiffQuery, ProjectDiffRequestDto } from './project-diff.dto';

export const PROJECT_DIFF_OPTIONS = Symbol('PROJECT_DIFF_OPTIONS');

export interface ProjectDiffOptions {
  /** dry runs at once (each holds a connection and CUE builds) */
  concurrency: number;
  /** the whole diff, every cluster included */
  deadlineMs: number;
  /** bounds of an uploaded archive once extracted */
  archive: { maxBytes: number; maxFiles: number };
}

export function defaultProjectDiffOptions(): ProjectDiffOptions {
  return { concurrency: 4, deadlineMs: 90_000, archive: { maxBytes: 16 * 1024 * 1024, maxFiles: 2_000 } };
}

type Source = { digest?: string; tag?: string; files?: SourceFiles; archive?: Buffer };

@Injectable()
export class ProjectDiffService {
  private readonly options: ProjectDiffOptions;

  constructor(
    private readonly projects: ProjectsService,
    private readonly targets: TargetsRepository,
    private readonly tenants: TenantsRepository,
    private readonly credentials: CredentialsService,
    @Inject(TARGET_RUNNER) private readonly runner: TargetRunner,
    @Inject(AGENT_DIFFER) private readonly agents: AgentDiffer,
    @Inject(PROJECT_DIFF_OPTIONS) options: Partial<ProjectDiffOptions>,
  ) {
    this.options = { ...defaultProjectDiffOptions(), ...options };
  }

  async diff(name: string, dto: ProjectDiffRequestDto, q: ProjectDiffQuery): Promise<ProjectDiffDto> {
    const project = this.projects.refuseWhileDeleting(await this.projects.find(name));
    const targets = this.select(project, await this.targets.forProject(project.id), q);
    const source = await this.source(dto);
    const tenant = await this.tenants.findByName(project.tenant);
    const deadline = AbortSignal.timeout(this.options.deadlineMs);
    const clusters = await boundedFanout(targets, this.options.concurrency, deadline, (t) => this.one(project, tenant, t, source, deadline), (t) => failed(baseOf(t), this.timeoutMessage()));
    return { project: project.name, source: dto.tag ? `tag ${dto.tag}` : dto.digest ? `digest ${dto.digest}` : dto.artifact ? 'upload' : `tag ${project.sourceTag}`, clusters };
  }

  private select(project: ProjectEntity, all: TargetEntity[], q: ProjectDiffQuery): TargetEntity[] {
    let targets = all.filter((t) => t.cluster).sort((a, b) => a.cluster!.name.localeCompare(b.cluster!.name));
    if (q.cluster) {
      targets = targets.filter((t) => t.cluster!.name === q.cluster);
      if (!targets.length) throw new NotFoundError('target', `${project.name}/${q.cluster}`);
    }
    if (q.group) {
      targets = targets.filter((t) => t.cluster!.groupName === q.group);
      if (!targets.length) throw new NotFoundError(`Targets of project "${project.name}" in group`, q.group);
    }
    return targets;
  }

  /** An upload is read once, before any cluster: a bad one is the caller's 400. */
  private async source(dto: ProjectDiffRequestDto): Promise<Source> {
    if (dto.artifact === undefined) return { digest: dto.digest, tag: dto.tag };
    const archive = Buffer.from(dto.artifact, 'base64');
    try {
      return { archive, files: await readSourceArchive(archive, this.options.archive) };
    } catch (err) {
      if (err instanceof ArchiveError) throw new InvalidInputError([`artifact: ${err.message}`]);
      throw err;
    }
  }

  /** Never rejects: a failure is the cluster's answer. */
  private async one(project: ProjectEntity, tenant: TenantEntity | null, target: TargetEntity, source: Source, signal: AbortSignal): Promise<ClusterDiffDto> {
    const cluster = target.cluster!;
    const base = baseOf(target);
    try {
      if (cluster.mode === 'agent') {
        const outcome = await this.agents.diff({ project, cluster, targetId: target.id, digest: source.digest, tag: source.tag, archive: source.archive, signal });
        if ('skipped' in outcome) return skipped(base, outcome.skipped);
        if ('failed' in outcome) return failed(base, outcome.failed);
        return diffed(base, outcome.diff);
      }
      if (!this.runner.diff) return skipped(base, 'this hub runs Targets without the engine and cannot dry-run');
      const connection = await pushConnection(this.credentials, cluster);
      if (!connection) return failed(base, `cluster ${cluster.name} has no stored endpoint or credentials the hub can use`);
      const spec = runProject(project, tenant);
      const diff = await this.runner.diff({
        // with its tenant's policy, which the dry run enforces as a run does
        project: { ...spec, source: { ...spec.source, tag: source.tag ?? project.sourceTag } },
        cluster: { name: cluster.name, group: cluster.groupName, serverVersion: cluster.serverVersion, mode: cluster.mode },
        connection,
        registryCredentials: await openRegistryCredentials(this.credentials, project.registryCredentialId, project.sourceRepository),
        digest: source.digest,
        files: source.files,
        owner: cluster.id,
        knownNamespaces: target.namespaces,
        signal,
        onKubeRequest: () => undefined,
      });
      return diffed(base, diff);
    } catch (err) {
      if (signal.aborted) return failed(base, this.timeoutMessage());
      return failed(base, err instanceof EngineError ? err.message : `unexpected: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private timeoutMessage(): string {
    return `not finished within the diff's deadline of ${Math.round(this.options.deadlineMs / 1000)}s`;
  }
}

type Base = Pick<ClusterDiffDto, 'cluster' | 'group' | 'mode'>;

function baseOf(target: TargetEntity): Base {
  return { cluster: target.cluster!.name, group: target.cluster!.groupName, mode: target.cluster!.mode };
}
const noCounts = () => ({ created: 0, changed: 0, pruned: 0, unchanged: 0 });

function skipped(base: Base, message: string): ClusterDiffDto {
  return { ...base, state: 'skipped', message, revision: null, counts: noCounts(), objects: [], errors: [] };
}

function failed(base: Base, message: string): ClusterDiffDto {
  return { ...base, state: 'failed', message, revision: null, counts: noCounts(), objects: [], errors: [] };
}

function diffed(base: Base, diff: ProjectDiff): ClusterDiffDto {
  const counts = noCounts();
  counts.unchanged = diff.unchanged;
  for (const o of diff.objects) counts[o.action]++;
  const message = diff.errors.length ? `${diff.errors.length} component(s) could not be diffed` : null;
  return { ...base, state: 'diffed', message, revision: diff.revision, counts, objects: diff.objects, errors: diff.errors };
}
