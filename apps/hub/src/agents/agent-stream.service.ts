import { type Assignment, certificateFingerprint, type ConnectRequest, type ConnectResponse, describeOversized, type InstanceEvent, oversizedField, type RunReport as ReportMessage } from '@flotilla/agent-protocol';
import { Inject, Injectable } from '@nestjs/common';
import { type ServerDuplexStream, status as GrpcStatus } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { Clock } from '../common/clock';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { CredentialsService } from '../credentials/credentials.service';
import { EventsService } from '../events/events.service';
import { HUB_EVENT_REASONS, type HubEventReason } from '../events/hub-event';
import { HUB_LOGGER } from '../logging/logging.module';
import { ClustersRepository } from '../repositories/clusters.repository';
import { TargetsRepository } from '../repositories/targets.repository';
import { LeaseRepository } from '../scheduler/lease.repository';
import { RunWakeup } from '../scheduler/run-wakeup';
import { openRegistryCredentials } from '../scheduler/sources/registry-credentials';
import { AgentCa } from './agent-ca.service';
import { AgentDiffs } from './agent-diffs';
import { AgentLinkWrites } from './agent-link-writes';
import { type AgentIdentity, AgentLinksRepository } from './agent-links.repository';
import { AgentSession } from './agent-session';
import { AgentSessions } from './agent-sessions';
import { AgentStreamMetrics } from './agent-stream.metrics';
import { AgentUpgrades } from './agent-upgrades';
import { assignmentOf } from './assignment';
import { BadCertificateRequest } from './certificate-authority';
import { BadAgentReport, parseAgentReport } from './report-check';
import { kindOf, StreamRates } from './stream-rates';

type Stream = ServerDuplexStream<ConnectRequest, ConnectResponse>;

/**
 * The hub's side of one agent stream: checks the client certificate, waits for the
 * Hello, stores the reports the agent buffered, sends the full set of
 * assignments, then relays reports to the runs waiting for them (or stores
 * them itself), records instance events and heartbeats, and renews the
 * agent's certificate when it asks. The scheduler runs
 * the cluster's Targets on this replica while the stream lasts.
 */
@Injectable()
export class AgentStreamService {
  constructor(
    private readonly links: AgentLinksRepository,
    private readonly sessions: AgentSessions,
    private readonly leases: LeaseRepository,
    private readonly targets: TargetsRepository,
    private readonly clusters: ClustersRepository,
    private readonly credentials: CredentialsService,
    private readonly events: EventsService,
    private readonly wakeup: RunWakeup,
    private readonly agentCa: AgentCa,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
    private readonly linkWrites: AgentLinkWrites,
    private readonly diffs: AgentDiffs,
    private readonly clock: Clock,
    private readonly metrics: AgentStreamMetrics,
    private readonly upgrades: AgentUpgrades,
  ) {}

  private get replica(): string {
    return this.config.scheduler.hubId;
  }

  async open(stream: Stream): Promise<void> {
    const identity = await this.authenticate(stream).catch(() => null);
    if (!identity) {
      stream.emit('error', { code: GrpcStatus.UNAUTHENTICATED, details: 'no client certificate of the hub\'s agent CA, or a revoked one: register the agent again with a new bootstrap token' });
      return;
    }
    const session = new AgentSession({ clusterId: identity.clusterId, clusterName: identity.clusterName }, identity.fingerprint, stream);
    const log = this.logger.child({ cluster: identity.clusterName });
    let hello = false;
    // messages are handled one after another, in the order the agent sent them
    let queue = Promise.resolve();
    const helloTimer = setTimeout(() => !hello && this.refuse(stream, session, GrpcStatus.DEADLINE_EXCEEDED, 'no Hello in time'), this.config.agents.heartbeatTimeoutMs);
    const rates = new StreamRates(this.config.agents.streamRates, this.clock.now().getTime());
    let opened = false;
    stream.on('data', (m: ConnectRequest) => {
      session.lastSeen = Date.now();
      if (session.closed.aborted) return;
      // bounds are checked as messages arrive, before any work is queued for them
      const message = m.body?.$case ?? 'empty';
      const over = oversizedField(m);
      if (over) {
        this.metrics.refused.inc({ reason: 'oversized', message });
        log.warn({ field: over.field, bytes: over.bytes, limit: over.limit }, 'agent message with a field over its bound refused; stream closed');
        return this.refuse(stream, session, GrpcStatus.INVALID_ARGUMENT, `${describeOversized(over)}: this hub refuses the message`);
      }
      const kind = kindOf(m);
      // only the opening Hello (which may carry a buffer of reports) is outside the budget; a second one is not
      const opening = !opened;
      opened = true;
      if (!opening && !rates.allow(kind, this.clock.now().getTime())) {
        this.metrics.refused.inc({ reason: 'rate', message });
        log.warn({ kind }, 'agent stream over its message rate; stream closed');
        return this.refuse(stream, session, GrpcStatus.RESOURCE_EXHAUSTED, rates.describe(kind));
      }
      queue = queue.then(async () => {
        if (session.closed.aborted) return;
        if (!hello) {
          if (m.body?.$case !== 'hello') return this.refuse(stream, session, GrpcStatus.INVALID_ARGUMENT, 'the first message must be a Hello');
          hello = true;
          clearTimeout(helloTimer);
          return this.greet(session, m.body.value, log);
        }
        await this.handle(session, m, log);
      }).catch((err: unknown) => log.error({ err: err instanceof Error ? err.message : String(err) }, 'agent message failed'));
    });
    const gone = () => {
      clearTimeout(helloTimer);
      session.close('the stream ended');
      if (this.sessions.remove(session)) {
        void this.linkWrites.disconnected(identity.clusterId).catch(() => undefined);
        log.info('agent disconnected');
      }
    };
    stream.on('end', gone);
    stream.on('error', gone);
    stream.on('close', gone);
    stream.on('cancelled', gone);
  }

  private refuse(stream: Stream, session: AgentSession, code: GrpcStatus, details: string): void {
    // the status first: closing the session ends the stream, and an ended stream reports OK
    stream.emit('error', { code, details });
    session.close(details);
  }

  /**
   * The cluster of the stream's client certificate. TLS has verified it
   * chains to the agent CA and is within its validity (grpc-js gives no
   * certificate otherwise); the database says whether it is still the
   * cluster's. What the agent says about itself never counts.
   */
  private async authenticate(stream: Stream): Promise<(AgentIdentity & { fingerprint: string }) | null> {
    const peer = stream.getAuthContext().sslPeerCertificate;
    if (!peer?.raw) return null;
    const fingerprint = certificateFingerprint(peer.raw);
    const identity = await this.links.identify(fingerprint);
    return identity && { ...identity, fingerprint };
  }

  private async greet(session: AgentSession, hello: { agentVersion: string; bufferedReports: ReportMessage[] }, log: Logger): Promise<void> {
    // the reports it kept first: until the session is listed the scheduler claims none of its Targets
    // here, so no run of ours holds the lease a kept report needs (its connected write is batched now)
    for (const r of hello.bufferedReports) await this.report(session, r, log);
    if (session.closed.aborted) return; // gone meanwhile: never listed
    this.sessions.add(session);
    await this.linkWrites.connected(session.identity.clusterId, hello.agentVersion || 'unknown');
    // connected with the renewed certificate: the one it replaced is done
    await this.links.adopted(session.identity.clusterId, session.fingerprint);
    log.info({ agentVersion: hello.agentVersion, buffered: hello.bufferedReports.length }, 'agent connected');
    session.send({ body: { $case: 'assignments', value: { assignments: await this.fullSet(session.identity) } } });
    this.upgrades.connected(session, hello.agentVersion, log);
    // its due Targets can run now, on this replica
    this.wakeup.wake();
  }

  private async handle(session: AgentSession, m: ConnectRequest, log: Logger): Promise<void> {
    switch (m.body?.$case) {
      case 'report':
        return this.report(session, m.body.value, log);
      case 'event':
        return this.event(session, m.body.value, log);
      case 'heartbeat':
        // not awaited: the stream's next message need not wait for the heartbeat batch
        void this.linkWrites.heartbeat(session.identity.clusterId).catch((err: unknown) => log.warn({ err: err instanceof Error ? err.message : String(err) }, 'heartbeat not written'));
        return;
      case 'renew':
        return this.renew(session, m.body.value.csrPem, log);
      case 'diff':
        return this.diffs.answered(session.identity.clusterId, m.body.value);
      case 'upgradeResult':
        return this.upgrades.result(m.body.value, log);
      case 'ack':
        return;
      case 'hello':
        log.warn('a second Hello on the same stream ignored');
        return;
    }
  }

  /**
   * A run report: to the run of this replica waiting for it, else stored
   * here as a run of its own (the agent ran while the hub was away). Acked
   * once it is the hub's; not acked when it cannot be stored now, so the
   * agent keeps it and sends it again on its next connection.
   */
  private async report(session: AgentSession, m: ReportMessage, log: Logger): Promise<void> {
    const ack = () => session.send({ body: { $case: 'reportAck', value: { reportId: m.reportId } } });
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(m.reportId)) return log.warn({ reportId: m.reportId.slice(0, 80) }, 'report without a valid id dropped');
    let report;
    try {
      report = parseAgentReport(m.reportJson);
    } catch (err) {
      // never storable: acked so the agent drops it rather than sending it forever
      log.warn({ err: err instanceof BadAgentReport ? err.message : String(err), target: m.targetId }, 'agent report refused');
      return ack();
    }
    // a run of this replica waiting for it sent this cluster that Target: no need to look it up
    if (session.offerReport(m.targetId, m.generation, { report, reportId: m.reportId })) return ack();
    const target = /^[0-9a-f-]{36}$/.test(m.targetId) ? await this.targets.findById(m.targetId) : null;
    if (!target || target.clusterId !== session.identity.clusterId) {
      log.warn({ target: m.targetId }, 'report for a Target that is not this cluster\'s (removed, or never its own) dropped');
      return ack();
    }
    if (await this.leases.hasAgentReport(m.reportId)) return ack();
    const lease = await this.leases.claimForReport(this.replica, target.id, target.clusterId, this.config.scheduler.leaseTtlMs);
    if (!lease) return; // a run holds it; the agent sends the report again later
    const started = await this.leases.startRun(lease, { generation: target.generation, revision: report.revision ?? null, trigger: 'Agent', conditions: target.conditions, phase: target.phase, startedAt: validDate(report.startedAt) });
    if (!started) return;
    await this.leases.finishRun(lease, { runId: started.id, startedAt: new Date(report.startedAt), report, observedGeneration: target.observedGeneration ?? target.generation, agentReportId: m.reportId, finishedAt: validDate(report.finishedAt) });
    ack();
  }

  /**
   * A new certificate for the stream's cluster, for the CSR's key. The
   * stream's own certificate keeps working until the agent reconnects with
   * the new one (or a third of a certificate's life at most).
   */
  private async renew(session: AgentSession, csrPem: string, log: Logger): Promise<void> {
    const refuse = (error: string) => session.send({ body: { $case: 'renewed', value: { certificatePem: '', error } } });
    let issued;
    try {
      issued = await this.agentCa.ca.signAgent(csrPem, { id: session.identity.clusterId, name: session.identity.clusterName }, this.config.agents.certTtlMs);
    } catch (err) {
      if (err instanceof BadCertificateRequest) return refuse(err.message);
      throw err;
    }
    const overlapMs = Math.min(3600_000, this.config.agents.certTtlMs / 3);
    if (!(await this.links.renewed(session.identity.clusterId, session.fingerprint, { fingerprint: certificateFingerprint(issued.pem), notAfter: issued.notAfter }, overlapMs))) {
      return refuse('this stream\'s certificate no longer counts: register again');
    }
    log.info({ certExpires: issued.notAfter.toISOString() }, 'agent certificate renewed');
    session.send({ body: { $case: 'renewed', value: { certificatePem: issued.pem, error: '' } } });
  }

  private async event(session: AgentSession, e: InstanceEvent, log: Logger): Promise<void> {
    if (!(HUB_EVENT_REASONS as readonly string[]).includes(e.reason) || (e.type !== 'Normal' && e.type !== 'Warning')) return log.warn({ reason: e.reason.slice(0, 64) }, 'agent event with an unknown reason or type dropped');
    const target = /^[0-9a-f-]{36}$/.test(e.targetId) ? await this.targets.findById(e.targetId) : null;
    if (!target || target.clusterId !== session.identity.clusterId) return;
    const cut = (s: string, n: number) => (s ? s.slice(0, n) : undefined);
    await this.events.record({
      projectId: target.projectId,
      clusterName: session.identity.clusterName,
      type: e.type,
      reason: e.reason as HubEventReason,
      message: e.message.slice(0, 4096),
      revision: cut(e.revision, 200),
      component: cut(e.component, 253),
      instance: cut(e.instance, 253),
      namespace: cut(e.namespace, 253),
    });
  }

  /** Every assignment the cluster holds: what its Targets were last sent, with the Project as it is now. */
  private async fullSet(identity: AgentIdentity): Promise<Assignment[]> {
    const out: Assignment[] = [];
    const group = (await this.clusters.findById(identity.clusterId))?.groupName ?? '';
    for (const t of await this.targets.forCluster(identity.clusterId)) {
      const p = t.project;
      if (!p || t.agentGeneration === null || t.agentDigest === null) continue;
      out.push(
        assignmentOf({
          targetId: t.id,
          generation: t.agentGeneration,
          project: { name: p.name, namespace: p.namespace, source: { repository: p.sourceRepository, tag: p.sourceTag, path: p.sourcePath }, serviceAccountName: p.serviceAccountName, annotations: p.annotations },
          cluster: { name: identity.clusterName, group },
          digest: t.agentDigest,
          intervalSeconds: p.intervalSeconds,
          suspend: p.suspend,
          delete: p.deletionRequestedAt !== null || t.removalRequestedAt !== null,
          registryCredentials: await openRegistryCredentials(this.credentials, p.registryCredentialId, p.sourceRepository),
        }),
      );
    }
    return out;
  }
}

/** A time the agent reported, if it is one (and not in the future of this hub). */
function validDate(s: string): Date | undefined {
  const t = Date.parse(s);
  return Number.isFinite(t) ? new Date(Math.min(t, Date.now())) : undefined;
}
