import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { ClockRepository } from '../common/clock.repository';
import { ConflictError, InvalidInputError, NotFoundError } from '../common/errors';
import type { Page } from '../common/paging';
import { CredentialsService } from '../credentials/credentials.service';
import type { ClusterEntity } from '../database/entities';
import { KubeRepository } from '../kube/kube.repository';
import type { ClusterCredentials } from '@flotilla/kube';
import { credentialsWith, endpointFrom, resolveConnection, type StoredClusterSecret } from './cluster-connection';
import { HUB_LOGGER } from '../logging/logging.module';
import { MembershipService } from '../targeting/membership.service';
import { parseSelectorParam } from '../targeting/selector';
import { TargetsRepository } from '../targeting/targets.repository';
import type { ClusterDto, ClusterQuery, CreateClusterDto, EndpointDto, UpdateClusterDto } from './clusters.dto';
import { ClustersRepository } from './clusters.repository';

@Injectable()
export class ClustersService {
  constructor(
    private readonly clusters: ClustersRepository,
    private readonly targets: TargetsRepository,
    private readonly credentials: CredentialsService,
    private readonly membership: MembershipService,
    private readonly kube: KubeRepository,
    private readonly clock: ClockRepository,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
  ) {}

  async create(dto: CreateClusterDto): Promise<ClusterDto> {
    const resolved = dto.mode === 'push' ? resolveConnection(dto.endpoint, dto.credentials!) : undefined;
    if (await this.clusters.existsByName(dto.name)) throw new ConflictError(`cluster "${dto.name}" already exists`);
    const credential = resolved ? await this.credentials.store(resolved.kind, resolved.secret) : undefined;
    let cluster: ClusterEntity;
    try {
      cluster = await this.clusters.insert({
        name: dto.name,
        groupName: dto.group,
        labels: dto.labels,
        mode: dto.mode,
        server: resolved?.credentials.server ?? null,
        caData: resolved?.credentials.caData ?? null,
        insecureSkipTlsVerify: resolved?.credentials.insecureSkipTLSVerify ?? false,
        credentialId: credential?.id ?? null,
      });
    } catch (err) {
      if (credential) await this.credentials.delete(credential.id);
      if (isUniqueViolation(err)) throw new ConflictError(`cluster "${dto.name}" already exists`);
      throw err;
    }
    if (resolved) await this.check(cluster, resolved.credentials);
    await this.membership.syncCluster(cluster.id);
    return this.get(dto.name);
  }

  async list(q: ClusterQuery): Promise<Page<ClusterDto>> {
    const labelSelector = q.labelSelector !== undefined ? parseSelectorParam(q.labelSelector) : undefined;
    const [rows, total] = await this.clusters.page({ group: q.group, mode: q.mode, labelSelector }, q.limit, q.offset);
    return { items: await this.toDtos(rows), total, limit: q.limit, offset: q.offset };
  }

  async get(name: string): Promise<ClusterDto> {
    return (await this.toDtos([await this.find(name)]))[0];
  }

  async update(name: string, dto: UpdateClusterDto): Promise<ClusterDto> {
    const cluster = await this.find(name);
    if (cluster.mode === 'agent' && (dto.endpoint || dto.credentials)) {
      throw new InvalidInputError(['endpoint, credentials: not used by agent clusters (the agent dials the hub)']);
    }
    const patch: Partial<ClusterEntity> = {};
    if (dto.group !== undefined) patch.groupName = dto.group;
    if (dto.labels !== undefined) patch.labels = dto.labels;

    let connection: ClusterCredentials | undefined;
    if (dto.credentials) {
      // a new kubeconfig brings its own server unless an endpoint is given too
      const endpoint = dto.endpoint ?? (dto.credentials.kubeconfig !== undefined ? undefined : this.storedEndpoint(cluster));
      const resolved = resolveConnection(endpoint, dto.credentials);
      if (cluster.credentialId) await this.credentials.replace(cluster.credentialId, resolved.kind, resolved.secret);
      else patch.credentialId = (await this.credentials.store(resolved.kind, resolved.secret)).id;
      connection = resolved.credentials;
    } else if (dto.endpoint) {
      const problems: string[] = [];
      connection = credentialsWith(endpointFrom(dto.endpoint, problems), (await this.secretOf(cluster)).auth);
      if (problems.length) throw new InvalidInputError(problems);
    }
    if (connection) {
      patch.server = connection.server;
      patch.caData = connection.caData ?? null;
      patch.insecureSkipTlsVerify = connection.insecureSkipTLSVerify ?? false;
    }
    if (Object.keys(patch).length > 0) await this.clusters.update(cluster.id, patch);
    if (connection) await this.check(cluster, connection);
    if (dto.group !== undefined || dto.labels !== undefined) await this.membership.syncCluster(cluster.id);
    return this.get(name);
  }

  async delete(name: string, force: boolean): Promise<void> {
    const cluster = await this.find(name);
    const targets = await this.targets.forCluster(cluster.id);
    if (targets.length > 0 && !force) {
      const projects = targets.map((t) => t.project?.name ?? t.projectId).join(', ');
      throw new ConflictError(`cluster "${name}" still has ${targets.length} Target(s) (Projects: ${projects}); change their targets first or delete with ?force=true`);
    }
    await this.clusters.delete(cluster.id);
    if (cluster.credentialId) await this.credentials.delete(cluster.credentialId);
  }

  /** Re-checks connectivity of a push cluster and records the outcome. */
  async recheck(name: string): Promise<ClusterDto> {
    const cluster = await this.find(name);
    if (cluster.mode !== 'push' || !cluster.server) throw new InvalidInputError([`cluster "${name}": only push clusters are checked by the hub`]);
    const auth = (await this.secretOf(cluster)).auth;
    await this.check(cluster, credentialsWith({ server: cluster.server, caData: cluster.caData ?? undefined, insecureSkipTLSVerify: cluster.insecureSkipTlsVerify }, auth));
    return this.get(name);
  }

  private async check(cluster: ClusterEntity, conn: ClusterCredentials): Promise<void> {
    const at = this.clock.now();
    try {
      const version = await this.kube.version(conn);
      await this.clusters.update(cluster.id, { reachable: true, serverVersion: version, lastCheckedAt: at, statusMessage: null });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.logger.warn({ cluster: cluster.name, reason: message }, 'cluster unreachable');
      await this.clusters.update(cluster.id, { reachable: false, lastCheckedAt: at, statusMessage: message });
    }
  }

  private storedEndpoint(cluster: ClusterEntity): EndpointDto {
    return { server: cluster.server ?? '', caData: cluster.caData ?? undefined, insecureSkipTLSVerify: cluster.insecureSkipTlsVerify };
  }

  private async secretOf(cluster: ClusterEntity): Promise<StoredClusterSecret> {
    const stored = cluster.credentialId ? await this.credentials.reveal<StoredClusterSecret>(cluster.credentialId) : null;
    if (!stored) throw new InvalidInputError([`cluster "${cluster.name}" has no stored credentials; give credentials`]);
    return stored.secret;
  }

  private async find(name: string): Promise<ClusterEntity> {
    const c = await this.clusters.findByName(name);
    if (!c) throw new NotFoundError('cluster', name);
    return c;
  }

  /** Response views; credential summaries and Target counts come in one query each, not one per cluster. */
  private async toDtos(rows: ClusterEntity[]): Promise<ClusterDto[]> {
    const summaries = await this.credentials.summaries(rows.map((c) => c.credentialId));
    const counts = await this.targets.countsForClusters(rows.map((c) => c.id));
    return rows.map((c) => ({
      name: c.name,
      group: c.groupName,
      labels: c.labels,
      mode: c.mode,
      endpoint: c.server ? { server: c.server, insecureSkipTLSVerify: c.insecureSkipTlsVerify, hasCaData: c.caData !== null } : null,
      credentials: (c.credentialId && summaries.get(c.credentialId)) || null,
      status: { reachable: c.reachable, version: c.serverVersion, lastChecked: c.lastCheckedAt?.toISOString() ?? null, error: c.statusMessage },
      targets: counts.get(c.id) ?? 0,
      createdAt: c.createdAt.toISOString(),
      updatedAt: c.updatedAt.toISOString(),
    }));
  }

}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { driverError?: { code?: string }; code?: string };
  return e?.driverError?.code === '23505' || e?.code === '23505';
}
