import { inDestinations } from '../tenancy/tenant-rules';
import type { TenantReach } from '../tenancy/tenant-reach';
import { AgentBootstrapService } from '../agents/agent-bootstrap.service';
import type { AgentLinkState } from '../agents/agent-links.repository';
import { AgentSessions } from '../agents/agent-sessions';
import { agentView } from '../agents/agent-view';
import { EgressPolicy } from '@flotilla/egress';
import { Inject, Injectable } from '@nestjs/common';
import type { ClusterCredentials } from '@flotilla/kube';
import type { Logger } from 'pino';
import { Clock } from '../common/clock';
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError } from '../common/errors';
import type { Page } from '../common/paging';
import type { ClusterEntity } from '../database/entities';
import { KubeRepository } from '../kube/kube.repository';
import { HUB_LOGGER } from '../logging/logging.module';
import { type ClusterTwin, type ClusterViewRow, ClustersRepository } from '../repositories/clusters.repository';
import { clusterServerBinding, CredentialBindingError } from '../credentials/credential-binding';
import { DecryptionError } from '../crypto/crypto.repository';
import { CredentialsRepository } from '../repositories/credentials.repository';
import { type Transaction, UnitOfWork } from '../repositories/unit-of-work';
import { MembershipService } from '../targeting/membership.service';
import { parseLabelSelector } from '../targeting/label-selector-parser';
import { credentialsWith, endpointFrom, resolveConnection, type StoredClusterSecret } from './cluster-connection';
import { serverProblems } from '../egress/address-checks';
import type { ClusterDto, ClusterQuery, CreateClusterDto, EndpointDto, UpdateClusterDto } from './clusters.dto';

/**
 * The cluster inventory. A cluster, its credential and its Targets change in
 * one transaction; connectivity checks (network calls) run after the commit.
 */
@Injectable()
export class ClustersService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clusters: ClustersRepository,
    private readonly credentials: CredentialsRepository,
    private readonly membership: MembershipService,
    private readonly kube: KubeRepository,
    private readonly clock: Clock,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
    private readonly bootstrap: AgentBootstrapService,
    private readonly sessions: AgentSessions,
    private readonly egress: EgressPolicy,
  ) {}

  /** A taken name is AlreadyExistsError (409), also when a concurrent request took it first. */
  async create(dto: CreateClusterDto): Promise<ClusterDto> {
    const resolved = dto.mode === 'push' ? resolveConnection(dto.endpoint, dto.credentials!) : undefined;
    if (resolved) this.checkServer(resolved.credentials.server, dto.endpoint ? 'endpoint.server' : 'credentials.kubeconfig server');
    const cluster = await this.uow.transaction(async (tx) => {
      const credential = resolved ? await tx.credentials.store(resolved.kind, resolved.secret, clusterServerBinding(resolved.credentials.server)) : undefined;
      const created = await tx.clusters.insert({
        name: dto.name,
        groupName: dto.group,
        labels: dto.labels,
        mode: dto.mode,
        server: resolved?.credentials.server ?? null,
        caData: resolved?.credentials.caData ?? null,
        insecureSkipTlsVerify: resolved?.credentials.insecureSkipTLSVerify ?? false,
        credentialId: credential?.id ?? null,
      });
      await this.membership.syncCluster(tx, created.id);
      return created;
    });
    if (resolved) await this.check(cluster, resolved.credentials);
    const view = await this.get(dto.name);
    // the agent's bootstrap token: in this response only
    if (dto.mode === 'agent') view.agent = { ...view.agent!, ...(await this.bootstrap.issue(cluster.id)) };
    return view;
  }

  /** `reach`: a tenant member's, who sees only the clusters its tenants may target; undefined: all. */
  async list(q: ClusterQuery, reach?: TenantReach): Promise<Page<ClusterDto>> {
    const labelSelector = q.labelSelector !== undefined ? parseLabelSelector(q.labelSelector) : undefined;
    const { rows, total } = await this.clusters.viewPage({ group: q.group, mode: q.mode, labelSelector, reach }, q.limit, q.offset);
    return { items: rows.map((row) => toClusterDto(row, reach)), total, limit: q.limit, offset: q.offset };
  }

  async get(name: string, reach?: TenantReach): Promise<ClusterDto> {
    const row = await this.clusters.viewByName(name, reach);
    if (!row) throw new NotFoundError('cluster', name);
    if (reach && !inReach(reach, { name: row.name, group: row.groupName, labels: row.labels })) {
      throw new ForbiddenError(`cluster "${name}" is outside the destinations of tenant(s) ${reach.tenants.map((t) => `"${t}"`).join(', ')} (rule: destinations)`);
    }
    return toClusterDto(row, reach);
  }

  async update(name: string, dto: UpdateClusterDto): Promise<ClusterDto> {
    const changed = await this.uow.transaction(async (tx) => {
      // before the cluster's row: Target inserts hold the lock, then share-lock cluster rows (fleet counts)
      await tx.targets.lockMembership();
      const cluster = await findIn(tx, name);
      if (cluster.mode === 'agent' && (dto.endpoint || dto.credentials)) {
        throw new ConflictError(`cluster "${name}" is an agent cluster: it takes no endpoint or credentials (the agent dials the hub)`);
      }
      const patch: Partial<ClusterEntity> = {};
      if (dto.group !== undefined) patch.groupName = dto.group;
      if (dto.labels !== undefined) patch.labels = dto.labels;

      let connection: ClusterCredentials | undefined;
      if (dto.credentials) {
        // a new kubeconfig brings its own server unless an endpoint is given too
        const endpoint = dto.endpoint ?? (dto.credentials.kubeconfig !== undefined ? undefined : storedEndpoint(cluster));
        const resolved = resolveConnection(endpoint, dto.credentials);
        // the new credentials are bound to the server they come with
        const binding = clusterServerBinding(resolved.credentials.server);
        if (cluster.credentialId) await tx.credentials.replace(cluster.credentialId, resolved.kind, resolved.secret, binding);
        else patch.credentialId = (await tx.credentials.store(resolved.kind, resolved.secret, binding)).id;
        connection = resolved.credentials;
      } else if (dto.endpoint) {
        const problems: string[] = [];
        const endpoint = endpointFrom(dto.endpoint, problems);
        if (problems.length) throw new InvalidInputError(problems);
        // the stored credentials were given for the stored server: they never follow a new one
        if (endpoint.server !== cluster.server) {
          throw new ConflictError(`endpoint.server: changes where the stored credentials of cluster "${name}" go (now ${cluster.server}): send new credentials with it`);
        }
        // nor a new trust: another CA or skipped verification would let another server pose as this one
        if ((endpoint.insecureSkipTLSVerify ?? false) && !cluster.insecureSkipTlsVerify) {
          throw new ConflictError(`endpoint.insecureSkipTLSVerify: would send the stored credentials of cluster "${name}" to any server at ${cluster.server}: send new credentials with it`);
        }
        if ((endpoint.caData ?? null) !== cluster.caData) {
          throw new ConflictError(`endpoint.caData: changes which server the stored credentials of cluster "${name}" trust: send new credentials with it`);
        }
        connection = credentialsWith(endpoint, (await secretOf(tx.credentials, cluster)).auth);
      }
      if (connection) {
        this.checkServer(connection.server, dto.endpoint ? 'endpoint.server' : dto.credentials?.kubeconfig !== undefined ? 'credentials.kubeconfig server' : 'endpoint.server');
        patch.server = connection.server;
        patch.caData = connection.caData ?? null;
        patch.insecureSkipTlsVerify = connection.insecureSkipTLSVerify ?? false;
      }
      if (Object.keys(patch).length > 0) await tx.clusters.update(cluster.id, patch);
      if (dto.group !== undefined || dto.labels !== undefined) await this.membership.syncCluster(tx, cluster.id);
      return { cluster, connection };
    });
    if (changed.connection) await this.check(changed.cluster, changed.connection);
    return this.get(name);
  }

  /** ForbiddenError when the hub's policy refuses `server` (plain http off loopback, egress policy). */
  private checkServer(server: string, field: string): void {
    const problems = serverProblems(server, field, this.egress);
    if (problems.length) throw new ForbiddenError(problems.join('; '));
  }

  /** The cluster, its Targets and its credential go together. */
  async delete(name: string, force: boolean): Promise<void> {
    await this.uow.transaction(async (tx) => {
      const cluster = await findIn(tx, name);
      const targets = await tx.targets.forCluster(cluster.id);
      if (targets.length > 0 && !force) {
        const projects = targets.map((t) => t.project?.name ?? t.projectId).join(', ');
        throw new ConflictError(`cluster "${name}" still has ${targets.length} Target(s) (Projects: ${projects}); change their targets first or delete with ?force=true`);
      }
      await tx.clusters.delete(cluster.id);
      if (cluster.credentialId) await tx.credentials.delete(cluster.credentialId);
      // its credential went with it; other replicas cut its stream at their next watch
      tx.afterCommit(() => this.sessions.cut(cluster.id, 'the cluster was deleted'));
    });
  }

  /** Re-checks connectivity of a push cluster and records the outcome. */
  async recheck(name: string): Promise<ClusterDto> {
    const cluster = await this.find(name);
    if (cluster.mode !== 'push' || !cluster.server) throw new ConflictError(`cluster "${name}" is an agent cluster: only push clusters are checked by the hub`);
    const auth = (await secretOf(this.credentials, cluster)).auth;
    await this.check(cluster, credentialsWith({ server: cluster.server, caData: cluster.caData ?? undefined, insecureSkipTLSVerify: cluster.insecureSkipTlsVerify }, auth));
    return this.get(name);
  }

  /**
   * The periodic check: claims the push clusters not checked for
   * `intervalMs` and checks each (at most `limit` per call, at once, each
   * under the probe's deadline). Returns the names checked.
   */
  async checkDue(intervalMs: number, limit: number): Promise<string[]> {
    const due = await this.clusters.claimDueChecks(intervalMs, limit);
    await Promise.all(
      due.map(async (cluster) => {
        try {
          const auth = (await secretOf(this.credentials, cluster)).auth;
          await this.check(cluster, credentialsWith({ server: cluster.server!, caData: cluster.caData ?? undefined, insecureSkipTLSVerify: cluster.insecureSkipTlsVerify }, auth));
        } catch (err) {
          // stored credentials that do not open for this server (bound elsewhere, copied in): the cluster shows why it is not checked
          if (err instanceof CredentialBindingError || err instanceof DecryptionError) {
            await this.clusters.update(cluster.id, { reachable: false, lastCheckedAt: this.clock.now(), statusMessage: `stored credentials: ${err.message}` });
          }
          // the check records what the cluster answered; this is the hub's own trouble (credentials, database)
          this.logger.error({ cluster: cluster.name, err: err instanceof Error ? err.message : String(err) }, 'cluster check failed');
        }
      }),
    );
    return due.map((c) => c.name);
  }

  private async check(cluster: ClusterEntity, conn: ClusterCredentials): Promise<void> {
    const at = this.clock.now();
    try {
      const probe = await this.kube.probe(conn);
      await this.clusters.update(cluster.id, { reachable: true, serverVersion: probe.version, apiServerIdentity: probe.identity ?? null, lastCheckedAt: at, statusMessage: null });
      const twins = probe.identity ? (await this.clusters.withIdentity(probe.identity)).filter((c) => c.id !== cluster.id).map((c) => c.name) : [];
      if (twins.length > 0) this.logger.warn({ cluster: cluster.name, alsoRegisteredAs: twins }, 'the same API server is registered under several names');
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.logger.warn({ cluster: cluster.name, reason: message }, 'cluster unreachable');
      await this.clusters.update(cluster.id, { reachable: false, lastCheckedAt: at, statusMessage: message });
    }
  }

  private async find(name: string): Promise<ClusterEntity> {
    const c = await this.clusters.findByName(name);
    if (!c) throw new NotFoundError('cluster', name);
    return c;
  }
}

/** The response view of one row read by ClustersRepository.viewPage / viewByName. */
function toClusterDto(c: ClusterViewRow, reach: TenantReach | undefined): ClusterDto {
  return {
    name: c.name,
    group: c.groupName,
    labels: c.labels,
    mode: c.mode,
    endpoint: c.server ? { server: c.server, insecureSkipTLSVerify: c.insecureSkipTlsVerify, hasCaData: c.hasCaData } : null,
    credentials: c.credentialKind !== null && c.credentialFingerprint !== null ? { kind: c.credentialKind, fingerprint: c.credentialFingerprint } : null,
    status: { reachable: c.reachable, version: c.serverVersion, lastChecked: c.lastCheckedAt, error: c.statusMessage, warnings: twinWarnings(c, reach) },
    targets: c.targets,
    agent: c.mode === 'agent' ? agentView(linkState(c)) : null,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

/** Whether a cluster lies in `reach` (a member's destinations; undefined: everyone's). */
function inReach(reach: TenantReach | undefined, c: ClusterTwin): boolean {
  return !reach || reach.destinations.some((d) => inDestinations(d, c));
}

function linkState(c: ClusterViewRow): AgentLinkState {
  return { connected: c.agentConnected, statusSince: c.agentSince, agentVersion: c.agentVersion, lastHeartbeatAt: c.agentLastHeartbeat, registered: c.agentRegistered };
}

/** A warning naming the other registrations of the same API server that `reach` may see: the rest belong to other tenants. */
function twinWarnings(c: ClusterViewRow, reach: TenantReach | undefined): string[] {
  const others = (c.twins ?? []).filter((t) => inReach(reach, t));
  if (others.length === 0) return [];
  return [
    `the same API server (kube-system namespace uid ${c.apiServerIdentity}) is also registered as ${others.map((t) => `"${t.name}"`).join(', ')}: ` +
      'each registration prunes only the instances it applied, but a Project targeting both applies its objects twice; remove the duplicate registration',
  ];
}

async function findIn(tx: Transaction, name: string): Promise<ClusterEntity> {
  const c = await tx.clusters.findByName(name);
  if (!c) throw new NotFoundError('cluster', name);
  return c;
}

function storedEndpoint(cluster: ClusterEntity): EndpointDto {
  return { server: cluster.server ?? '', caData: cluster.caData ?? undefined, insecureSkipTLSVerify: cluster.insecureSkipTlsVerify };
}

async function secretOf(credentials: CredentialsRepository, cluster: ClusterEntity): Promise<StoredClusterSecret> {
  const stored = cluster.credentialId ? await credentials.reveal<StoredClusterSecret>(cluster.credentialId, clusterServerBinding(cluster.server ?? '')) : null;
  if (!stored) throw new InvalidInputError([`cluster "${cluster.name}" has no stored credentials; give credentials`]);
  return stored.secret;
}
