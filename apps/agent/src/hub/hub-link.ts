import { AGENT_PROTOCOL_LIMITS, AgentServiceClient, type Assignment, certificateMatchesKey, type ConnectRequest, type ConnectResponse, newAgentKeyRequest } from '@flotilla/agent-protocol';
import { buildRunReport, defaultBackoffOptions, emptyRunResult, failedRunResult, type RunReport, UnexpectedRunError } from '@flotilla/engine';
import { type ClientDuplexStream, credentials, Metadata, status as GrpcStatus } from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logging/logger';
import { HUB_GENERATION_ANNOTATION, HUB_TARGET_ANNOTATION, type ProjectResource } from '../project/project-resource';
import { projectSpecOf } from '../project/project-spec';
import { projectResourceOf } from './assignment-resource';
import type { AssignmentWriter } from './assignment-writer';
import { HUB_MANAGED_SELECTOR } from './project-ownership';
import type { DiffAnswerer } from './diff-answerer';
import type { AgentIdentityRecord, IdentityStore } from './identity-store';
import { CertificateRenewal } from './renewal';
import { ReconnectBackoff } from './reconnect-backoff';
import { ReportBuffer } from './report-buffer';
import type { SelfUpgrade } from './self-upgrade';

/** Diff answers kept for the next stream; the hub stops waiting for older ones soon anyway. */
const MAX_UNSENT_ANSWERS = 8;

export interface HubLinkOptions {
  address: string;
  /** PEM of the hub's agent CA: the only CA the hub's serving certificate is trusted from */
  caPem: string;
  /** read when the agent has no certificate (first start, lost Secret, reset) */
  bootstrapToken: () => string | undefined;
  agentVersion: string;
  kubeVersion: string;
  reportBuffer: number;
  heartbeatMs: number;
  reconnect: { initialMs: number; maxMs: number };
}

/**
 * The agent's side of the hub connection: registers once (a bootstrap token
 * and a CSR for a client certificate), then keeps one mutual-TLS stream
 * open, reconnecting with jittered backoff, and renews its certificate over
 * the stream two thirds into its life. Assignments become
 * Project resources (the controller reconciles them whether or not the hub
 * is there); every run's report goes to the hub, or into a bounded buffer
 * replayed in the next Hello until the hub acknowledges it.
 */
export class HubLink {
  /** a client per TLS identity: grpc-js fixes a channel's credentials when it is made */
  private client: InstanceType<typeof AgentServiceClient> | undefined;
  private clientIdentity: AgentIdentityRecord | undefined;
  /** the identity in use; kept in memory too, so a renewal the Secret could not take still counts */
  private current: AgentIdentityRecord | undefined;
  private readonly buffer: ReportBuffer;
  private readonly backoff: ReconnectBackoff;
  private stream: ClientDuplexStream<ConnectRequest, ConnectResponse> | undefined;
  private lastApplied = 0;
  /** answers ready while no stream was open */
  private readonly unsent: ConnectRequest[] = [];
  /** the open session's handler of a renewal answer */
  private onRenewed: ((answer: { certificatePem: string; error: string }) => Promise<void>) | undefined;
  connected = false;
  /** the hub's messages in hand, handled one after another */
  private handling: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: HubLinkOptions,
    private readonly identity: IdentityStore,
    private readonly writer: AssignmentWriter,
    private readonly diffs: DiffAnswerer,
    private readonly log: Logger,
    /** sets the hub's agent image on the agent's own Deployment */
    private readonly upgrader: SelfUpgrade,
  ) {
    this.buffer = new ReportBuffer(options.reportBuffer);
    this.backoff = new ReconnectBackoff(options.reconnect.initialMs, options.reconnect.maxMs);
  }

  /** The reconciler's run hook: a hub-managed Project's report is sent, or kept until it can be. */
  reportRun(project: ProjectResource, report: RunReport): void {
    const annotations = project.metadata.annotations ?? {};
    const targetId = annotations[HUB_TARGET_ANNOTATION];
    if (!targetId) return; // a Project someone created in the cluster: not the hub's business
    this.sendReport(targetId, Number(annotations[HUB_GENERATION_ANNOTATION] ?? 0), report);
  }

  /** Sent now, and kept until the hub acknowledges it. */
  private sendReport(targetId: string, generation: number, report: RunReport): void {
    const message = { targetId, generation, reportId: randomUUID(), reportJson: JSON.stringify(report) };
    this.buffer.add(message);
    this.send({ body: { $case: 'report', value: message } });
  }

  /**
   * The report of an assignment no Project run will report: a failure to
   * write it as a Project resource (with `err`), or the deletion of a
   * Project the cluster does not hold, or holds as someone else's (done,
   * nothing removed; `warning` says why).
   */
  private sendOwnReport(a: Assignment, err?: unknown, warning?: string): void {
    const facts = { project: projectSpecOf(projectResourceOf(a)), cluster: { name: a.clusterName, group: a.clusterGroup } };
    const result = err === undefined
      ? { ...emptyRunResult(facts, new Date()), ok: true, warnings: warning ? [warning] : [] }
      : failedRunResult(facts, new UnexpectedRunError(`the assignment could not be written as Project ${a.projectNamespace}/${a.projectName}: ${err instanceof Error ? err.message : String(err)}`, { cause: err }), new Date());
    this.sendReport(a.targetId, a.generation, buildRunReport(result, { attempt: 0, intervalMs: a.intervalSeconds * 1000, backoff: defaultBackoffOptions() }, a.delete ? 'delete' : 'reconcile'));
  }

  /** Runs until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const record = (this.current ??= (await this.identity.load()) ?? (await this.register()));
        const ended = await this.session(record, signal);
        if (ended === 'renewed') continue;
        if (ended === 'unauthenticated') {
          this.log.warn('the hub refused the agent certificate (revoked, expired or unknown); registering again with the bootstrap token');
          this.current = undefined;
          this.current = await this.register();
        }
      } catch (err) {
        this.log.warn('hub connection failed', { hub: this.options.address, error: err instanceof Error ? err.message : String(err) });
      }
      if (signal.aborted) break;
      const wait = this.backoff.next();
      this.log.info('reconnecting to the hub', { inMs: wait, buffered: this.buffer.size });
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, wait);
        signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
      });
    }
    this.client?.close();
  }

  /** A client over TLS trusting only the hub's agent CA, with `identity`'s client certificate (none: for Register). */
  private clientFor(identity: AgentIdentityRecord | undefined): InstanceType<typeof AgentServiceClient> {
    if (this.client && this.clientIdentity === identity) return this.client;
    this.client?.close();
    const ca = Buffer.from(this.options.caPem);
    const creds = identity ? credentials.createSsl(ca, Buffer.from(identity.keyPem), Buffer.from(identity.certPem)) : credentials.createSsl(ca);
    this.client = new AgentServiceClient(this.options.address, creds, {
      'grpc.max_receive_message_length': AGENT_PROTOCOL_LIMITS.maxMessageBytes,
      'grpc.keepalive_time_ms': 60_000,
    });
    this.clientIdentity = identity;
    return this.client;
  }

  private async register(): Promise<AgentIdentityRecord> {
    const token = this.options.bootstrapToken();
    if (!token) throw new Error('no certificate and no bootstrap token: give FLOTILLA_HUB_BOOTSTRAP_TOKEN (from the hub\'s install manifest)');
    const key = await newAgentKeyRequest();
    const client = this.clientFor(undefined);
    const res = await new Promise<{ clusterName: string; certificatePem: string }>((resolve, reject) =>
      client.register({ bootstrapToken: token, agentVersion: this.options.agentVersion, csrPem: key.csrPem }, new Metadata(), { deadline: Date.now() + 15_000 }, (err, r) => (err ? reject(err) : resolve(r))),
    );
    if (!res.certificatePem || !certificateMatchesKey(res.certificatePem, key.keyPem)) throw new Error('the hub answered the registration without a certificate of the agent\'s key (a hub older than the agent?)');
    const record = { clusterName: res.clusterName, keyPem: key.keyPem, certPem: res.certificatePem };
    await this.identity.save(record);
    this.log.info('registered with the hub', { cluster: res.clusterName });
    return record;
  }

  /**
   * One stream, until it ends: 'unauthenticated' when the hub refused the
   * certificate, 'renewed' when the agent ended it to use a renewed one.
   */
  private session(record: AgentIdentityRecord, signal: AbortSignal): Promise<'ended' | 'unauthenticated' | 'renewed'> {
    return new Promise((resolve) => {
      const stream = this.clientFor(record).connect();
      this.stream = stream;
      let settled = false;
      const renewal = new CertificateRenewal(record.certPem, (csrPem) => this.send({ body: { $case: 'renew', value: { csrPem } } }), this.log);
      this.onRenewed = async (answer) => {
        const got = renewal.take(answer);
        if (!got) return;
        const renewed = { clusterName: record.clusterName, ...got };
        this.current = renewed;
        // the old certificate keeps working on the hub a while: a Secret that cannot be written now is written on the next renewal or restart
        await this.identity.save(renewed).catch((err: unknown) => this.log.warn('the renewed certificate could not be saved to the identity Secret', { error: err instanceof Error ? err.message : String(err) }));
        this.log.info('agent certificate renewed; reconnecting with it');
        finish('renewed');
        stream.cancel();
      };
      const finish = (how: 'ended' | 'unauthenticated' | 'renewed') => {
        if (settled) return;
        settled = true;
        renewal.stop();
        clearInterval(heartbeat);
        signal.removeEventListener('abort', stop);
        this.connected = false;
        if (this.stream === stream) this.stream = undefined;
        resolve(how);
      };
      const stop = () => stream.cancel();
      signal.addEventListener('abort', stop, { once: true });
      stream.on('data', (m: ConnectResponse) => {
        if (!this.connected) {
          this.connected = true;
          this.backoff.reset();
          this.log.info('connected to the hub', { hub: this.options.address });
        }
        // one at a time, in the hub's order: two writes of one assignment at once would race each other
        // (a diff's answer runs the engine and is no write: it goes beside them)
        const handle = () => this.handle(m).catch((err: unknown) => this.log.warn('hub message failed', { error: err instanceof Error ? err.message : String(err) }));
        if (m.body?.$case === 'dryRunDiff') void handle();
        else this.handling = this.handling.then(handle);
      });
      stream.on('error', (err: Error & { code?: number }) => finish(err.code === GrpcStatus.UNAUTHENTICATED ? 'unauthenticated' : 'ended'));
      stream.on('end', () => finish('ended'));
      stream.write({ body: { $case: 'hello', value: { agentVersion: this.options.agentVersion, kubeVersion: this.options.kubeVersion, lastAppliedGeneration: this.lastApplied, bufferedReports: this.buffer.all().slice(-AGENT_PROTOCOL_LIMITS.maxBufferedReports) } } });
      for (const answer of this.unsent.splice(0)) stream.write(answer);
      const heartbeat = setInterval(() => this.send({ body: { $case: 'heartbeat', value: { sentAt: new Date() } } }), this.options.heartbeatMs);
    });
  }

  private send(m: ConnectRequest): void {
    this.stream?.write(m);
  }

  /** An answer the hub waits for goes on the stream open when it is ready, or the next one (the hub waits a little past a reconnect). */
  private sendAnswer(m: ConnectRequest): void {
    if (this.stream) return this.send(m);
    this.unsent.push(m);
    if (this.unsent.length > MAX_UNSENT_ANSWERS) this.unsent.shift();
  }

  private async handle(m: ConnectResponse): Promise<void> {
    const body = m.body;
    switch (body?.$case) {
      case 'assignments':
        // the full set on connect: each is written, or its failure reported (a foreign Project of that name, say)
        for (const a of body.value.assignments) {
          try {
            await this.write(a);
          } catch (err) {
            this.log.warn('assignment not written', { project: `${a.projectNamespace}/${a.projectName}`, error: err instanceof Error ? err.message : String(err) });
          }
          this.lastApplied = Math.max(this.lastApplied, a.generation);
        }
        return;
      case 'change':
        if (body.value.change?.$case === 'assignment') return this.take(body.value.change.value);
        if (body.value.change?.$case === 'removedTargetId') return this.writer.remove(body.value.change.value);
        return;
      case 'reportAck':
        this.buffer.ack(body.value.reportId);
        return;
      case 'reconcileNow':
        return this.writer.reconcileNow(body.value.targetIds);
      case 'dryRunDiff':
        return this.sendAnswer({ body: { $case: 'diff', value: await this.diffs.answer(body.value) } });
      case 'renewed':
        return this.onRenewed?.(body.value);
      case 'upgrade':
        return this.sendAnswer({ body: { $case: 'upgradeResult', value: await this.upgrader.upgrade(body.value.image) } });
      case 'heartbeat':
        return;
    }
  }

  private async take(a: Assignment): Promise<void> {
    await this.write(a);
    this.lastApplied = Math.max(this.lastApplied, a.generation);
    this.send({ body: { $case: 'ack', value: { targetId: a.targetId, generation: a.generation } } });
  }

  /** Writes one assignment; when no Project run will report it, the agent reports it itself. */
  private async write(a: Assignment): Promise<void> {
    let outcome: 'written' | 'absent' | 'foreign';
    try {
      outcome = await this.writer.apply(a);
    } catch (err) {
      // the hub's run waits for a report: say at once why there will be no run, rather than let it time out
      this.sendOwnReport(a, err);
      throw err;
    }
    // nothing to delete: done, as the hub's run expects to hear
    if (outcome === 'absent') this.sendOwnReport(a);
    if (outcome === 'foreign') this.sendOwnReport(a, undefined, `Project ${a.projectNamespace}/${a.projectName} in the cluster is not the hub's (no ${HUB_MANAGED_SELECTOR} label): left in place`);
  }
}
