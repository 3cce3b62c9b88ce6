import { AGENT_PROTOCOL_LIMITS, AgentServiceClient, type Assignment, type ConnectRequest, type ConnectResponse, type DiffResult, type DryRunDiff, newAgentKeyRequest, type RunReport as ReportMessage } from '@flotilla/agent-protocol';
import { buildRunReport, formatRevision, InstanceApplyError, type RunResult } from '@flotilla/engine';
import { credentials, Metadata, type ClientDuplexStream } from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';

/** What an agent proves itself with: its key and the hub's certificate of it. */
export interface SimulatedIdentity {
  keyPem: string;
  certPem: string;
}

/**
 * An agent that speaks the real protocol over a real connection but applies
 * nothing: each assignment is acknowledged and answered with an engine-built
 * RunReport of success (or failure, for digests a test marks). Hub suites
 * and the agents bench use it; the real agent process has its own suites.
 */
export class SimulatedAgent {
  /** the client certificate it registered for (or was given) */
  identity: SimulatedIdentity | undefined;
  clusterName = '';
  private client: InstanceType<typeof AgentServiceClient> | undefined;
  private clientIdentity: SimulatedIdentity | undefined;
  stream: ClientDuplexStream<ConnectRequest, ConnectResponse> | undefined;
  /** assignments held, by Target id */
  readonly assignments = new Map<string, Assignment>();
  readonly received: ConnectResponse[] = [];
  readonly acked = new Set<string>();
  /** digests whose runs fail */
  readonly failing = new Set<string>();
  /** reports not yet acknowledged by the hub (the buffer a real agent keeps) */
  readonly unacked = new Map<string, ReportMessage>();
  /** the release it says it is, in Register and Hello */
  agentVersion = 'sim-1';
  /** answer assignments with reports (off: only ack) */
  answer = true;
  /** how long applying takes before the report goes (unset: reported at once) */
  applyMs: (() => number) | undefined;
  ended: Error | undefined;
  /** answers dry-run diffs; unset, it answers as an agent that predates them */
  diffAnswer: ((request: DryRunDiff) => DiffResult) | undefined;
  /** called after every message the hub sends */
  onMessage: (() => void) | undefined;
  /** called when the stream ends (error or end) */
  onEnded: ((err: Error) => void) | undefined;
  private listeners: Array<() => void> = [];

  /** `caPem`: the hub's agent CA, the only one its serving certificate is trusted from */
  constructor(
    private readonly address: string,
    private readonly caPem: string,
  ) {}

  /** A client over TLS, with the client certificate of `identity` (none: only Register works). */
  private clientFor(identity: SimulatedIdentity | undefined): InstanceType<typeof AgentServiceClient> {
    if (this.client && this.clientIdentity === identity) return this.client;
    this.client?.close();
    const creds = identity ? credentials.createSsl(Buffer.from(this.caPem), Buffer.from(identity.keyPem), Buffer.from(identity.certPem)) : credentials.createSsl(Buffer.from(this.caPem));
    this.client = new AgentServiceClient(this.address, creds, { 'grpc.max_receive_message_length': AGENT_PROTOCOL_LIMITS.maxMessageBytes });
    this.clientIdentity = identity;
    return this.client;
  }

  /** Trades the token, with a CSR of a new key (or `csrPem` as given), for a client certificate. */
  async register(bootstrapToken: string, csrPem?: string): Promise<void> {
    const req = await newAgentKeyRequest();
    const client = this.clientFor(undefined);
    await new Promise<void>((resolve, reject) =>
      client.register({ bootstrapToken, agentVersion: this.agentVersion, csrPem: csrPem ?? req.csrPem }, new Metadata(), { deadline: Date.now() + 10_000 }, (err, res) => {
        if (err) return reject(err);
        this.identity = { keyPem: req.keyPem, certPem: res.certificatePem };
        this.clusterName = res.clusterName;
        resolve();
      }),
    );
  }

  /** Asks for a new certificate over the open stream; resolves with the hub's answer, and takes the certificate when there is one. */
  async renew(): Promise<{ certificatePem: string; error: string }> {
    const req = await newAgentKeyRequest();
    const seen = this.received.length;
    this.send({ body: { $case: 'renew', value: { csrPem: req.csrPem } } });
    const answer = await this.until(() => this.received.slice(seen).find((m) => m.body?.$case === 'renewed'));
    const renewed = answer.body?.$case === 'renewed' ? answer.body.value : { certificatePem: '', error: 'no answer' };
    if (renewed.certificatePem) this.identity = { keyPem: req.keyPem, certPem: renewed.certificatePem };
    return renewed;
  }

  /** Opens the stream and says hello, with any reports still unacknowledged. */
  connect(identity = this.identity): void {
    this.ended = undefined;
    const stream = this.clientFor(identity).connect();
    this.stream = stream;
    stream.on('data', (m: ConnectResponse) => this.handle(m));
    // only the current stream's end counts: one replaced or cancelled here says nothing
    stream.on('error', (err: Error) => {
      if (this.stream !== stream) return;
      this.ended = err;
      this.onEnded?.(err);
      this.notify();
    });
    stream.on('end', () => {
      if (this.stream !== stream) return;
      this.ended ??= new Error('stream ended');
      this.notify();
    });
    stream.write({ body: { $case: 'hello', value: { agentVersion: this.agentVersion, kubeVersion: 'v1.36.0', lastAppliedGeneration: 0, bufferedReports: [...this.unacked.values()] } } });
  }

  send(m: ConnectRequest): void {
    this.stream?.write(m);
  }

  disconnect(): void {
    this.stream?.cancel();
    this.stream = undefined;
  }

  close(): void {
    this.disconnect();
    this.client?.close();
  }

  /** Resolves when `check` holds after some message (or the stream's end). */
  until<T>(check: () => T | undefined, timeoutMs = 20_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const attempt = () => {
        const v = check();
        if (v === undefined) return false;
        clearTimeout(timer);
        this.listeners = this.listeners.filter((l) => l !== listener);
        resolve(v);
        return true;
      };
      const listener = () => void attempt();
      const timer = setTimeout(() => {
        this.listeners = this.listeners.filter((l) => l !== listener);
        reject(new Error(`timed out waiting on the simulated agent of ${this.clusterName}`));
      }, timeoutMs);
      if (!attempt()) this.listeners.push(listener);
    });
  }

  /** A report the agent sends of its own (as after a drift correction). */
  reportFor(a: Assignment, ok: boolean): ReportMessage {
    return { targetId: a.targetId, generation: a.generation, reportId: randomUUID(), reportJson: JSON.stringify(reportOf(a, ok)) };
  }

  private handle(m: ConnectResponse): void {
    this.received.push(m);
    const body = m.body;
    if (body?.$case === 'assignments') {
      const held = new Map(this.assignments);
      this.assignments.clear();
      for (const a of body.value.assignments) {
        this.assignments.set(a.targetId, a);
        // as the real agent: a Target it held whose generation moved while it was away is reconciled
        if (a.generation > (held.get(a.targetId)?.generation ?? Infinity)) this.run(a);
      }
    } else if (body?.$case === 'change' && body.value.change?.$case === 'assignment') {
      const a = body.value.change.value;
      this.assignments.set(a.targetId, a);
      this.send({ body: { $case: 'ack', value: { targetId: a.targetId, generation: a.generation } } });
      this.acked.add(`${a.targetId}@${a.generation}`);
      this.run(a);
    } else if (body?.$case === 'change' && body.value.change?.$case === 'removedTargetId') {
      this.assignments.delete(body.value.change.value);
    } else if (body?.$case === 'reportAck') {
      this.unacked.delete(body.value.reportId);
    } else if (body?.$case === 'dryRunDiff') {
      const answer = this.diffAnswer?.(body.value) ?? { requestId: body.value.requestId, unsupported: true, diffJson: '', error: '' };
      this.send({ body: { $case: 'diff', value: answer } });
    }
    this.notify();
  }

  /** Answers an assignment with its report, at once or after `applyMs`. */
  private run(a: Assignment): void {
    if (!this.answer) return;
    const answer = () => {
      const r = this.reportFor(a, !this.failing.has(a.digest));
      this.unacked.set(r.reportId, r);
      this.send({ body: { $case: 'report', value: r } });
    };
    if (this.applyMs) setTimeout(answer, this.applyMs());
    else answer();
  }

  private notify(): void {
    this.onMessage?.();
    for (const l of [...this.listeners]) l();
  }
}

/** What the engine would report for applying (or deleting) an assignment, built by the engine itself. */
export function reportOf(a: Assignment, ok: boolean) {
  const now = new Date();
  const revision = a.digest ? formatRevision(a.tag, a.digest) : undefined;
  const result: RunResult = {
    project: { name: a.projectName, namespace: a.projectNamespace },
    cluster: { name: a.clusterName, group: a.clusterGroup },
    source: a.repository,
    tag: a.tag,
    ...(a.digest ? { digest: a.digest, revision } : {}),
    ok,
    startedAt: now,
    finishedAt: now,
    durationMs: 0,
    timings: { resolveMs: 0, fetchMs: 0, loadMs: 0, componentsMs: 0, pruneMs: 0 },
    components: [],
    pruned: [],
    namespaces: a.delete ? [] : [a.projectNamespace],
    warnings: [],
    ...(ok ? {} : { error: new InstanceApplyError('app', 'web', { cause: new Error(`simulated failure of ${a.digest}`) }) }),
  };
  return buildRunReport(result, { attempt: 0, intervalMs: a.intervalSeconds * 1000, backoff: { initialMs: 200, factor: 2, maxMs: 1600, jitter: 0 } }, a.delete ? 'delete' : 'reconcile');
}
