import { type Assignment, certificateFingerprint, type ConnectRequest, type ConnectResponse, describeOversized, oversizedField, type RunReport as ReportMessage } from '@flotilla/agent-protocol';
import { Inject, Injectable } from '@nestjs/common';
import { type ServerDuplexStream, status as GrpcStatus } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { Clock } from '../common/clock';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { CredentialsService } from '../credentials/credentials.service';
import { HUB_LOGGER } from '../logging/logging.module';
import { ClustersRepository } from '../repositories/clusters.repository';
import { TargetsRepository } from '../repositories/targets.repository';
import { openRegistryCredentials } from '../credentials/registry-credentials';
import { AgentCa } from './agent-ca.service';
import { AgentReportIngest } from './agent-report-ingest';
import { AssignmentDispatch } from './assignment-dispatch';
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
 * The hub's side of one agent stream: checks the client certificate, waits
 * for the Hello, stores the reports the agent buffered, sends the full set
 * of assignments (desired state; AssignmentDispatch sends each change while
 * the stream lasts), then takes every run report as status feedback
 * (AgentReportIngest), records heartbeats, and renews the agent's
 * certificate when it asks. It waits for no run: the agent is the clock
 * of its Targets.
 */
@Injectable()
export class AgentStreamService {
  constructor(
    private readonly links: AgentLinksRepository,
    private readonly sessions: AgentSessions,
    private readonly targets: TargetsRepository,
    private readonly clusters: ClustersRepository,
    private readonly credentials: CredentialsService,
    private readonly agentCa: AgentCa,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
    private readonly linkWrites: AgentLinkWrites,
    private readonly diffs: AgentDiffs,
    private readonly clock: Clock,
    private readonly metrics: AgentStreamMetrics,
    private readonly ingest: AgentReportIngest,
    private readonly dispatch: AssignmentDispatch,
    private readonly upgrades: AgentUpgrades,
  ) {}

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
    // the reports it kept first: the status they carry is older than anything it reports on this stream
    for (const r of hello.bufferedReports) await this.report(session, r, log);
    if (session.closed.aborted) return; // gone meanwhile: never listed
    await this.linkWrites.connected(session.identity.clusterId, hello.agentVersion || 'unknown');
    // connected with the renewed certificate: the one it replaced is done
    await this.links.adopted(session.identity.clusterId, session.fingerprint);
    // what changed while it was away is written first, so the full set carries it; the session is listed only
    // after that set went out, so no dispatch pass sends any of it again as a change meanwhile
    await this.dispatch.dispatchFor(session.identity.clusterId);
    session.send({ body: { $case: 'assignments', value: { assignments: await this.fullSet(session.identity) } } });
    this.sessions.add(session);
    // gone before it was listed: nobody else marks it disconnected
    if (session.closed.aborted && this.sessions.remove(session)) return void this.linkWrites.disconnected(session.identity.clusterId).catch(() => undefined);
    log.info({ agentVersion: hello.agentVersion, buffered: hello.bufferedReports.length }, 'agent connected');
    this.upgrades.connected(session, hello.agentVersion, log);
    // a change that came due between the full set and the listing goes out with the next pass
    this.dispatch.wake();
  }

  private async handle(session: AgentSession, m: ConnectRequest, log: Logger): Promise<void> {
    switch (m.body?.$case) {
      case 'report':
        return this.report(session, m.body.value, log);
      case 'event':
        // instance events come from the run reports (RunResults), as a push run's do
        return;
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
   * A run report, whatever made the agent run: stored through the one ingest
   * path, then acked. Not acked when it cannot be stored now (the database
   * is away, say): the agent keeps it and sends it again on its next stream.
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
    if (!/^[0-9a-f-]{36}$/.test(m.targetId)) {
      log.warn({ target: m.targetId.slice(0, 80) }, 'report for a Target id that is none dropped');
      return ack();
    }
    const outcome = await this.ingest.ingest(session.identity, { reportId: m.reportId, targetId: m.targetId, generation: m.generation, report });
    if (outcome === 'dropped') log.warn({ target: m.targetId }, 'report for a Target that is not this cluster\'s (removed, or never its own) dropped');
    this.metrics.reports.inc({ outcome });
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
