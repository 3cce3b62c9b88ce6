import { AGENT_SERVICE_DEFINITION, certificateFingerprint, describeOversized, oversizedRegisterField, type RegisterRequest, type RegisterResponse } from '@flotilla/agent-protocol';
import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { Server, type ServerUnaryCall, type sendUnaryData, status as GrpcStatus } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { HUB_LOGGER } from '../logging/logging.module';
import { AgentLinksRepository } from './agent-links.repository';
import { AgentCa } from './agent-ca.service';
import { AGENT_SERVER_OPTIONS } from './agent-server-options';
import { looksLikeBootstrapToken, secretHash } from './agent-secrets';
import { AgentSessions } from './agent-sessions';
import { AgentStreamService } from './agent-stream.service';
import { BadCertificateRequest } from './certificate-authority';
import { ServingIdentity, servingNames } from './serving-identity';

/** Heartbeats go to one slice of the agents at a time: 10,000 at once held a digest's assignments back by a second. */
const HEARTBEAT_SLICES = 10;

/**
 * The gRPC server agents dial, on its own port, over TLS with a serving
 * certificate from the agent CA; agents authenticate with client
 * certificates from the same CA. Besides the streams it keeps two clocks: a
 * heartbeat to every agent that also closes streams gone silent, spread in
 * slices over its period, and a watch that closes streams whose certificate
 * was revoked (on any replica).
 */
@Injectable()
export class AgentGrpcServer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private server: Server | undefined;
  private timer: NodeJS.Timeout | undefined;
  private heartbeats: NodeJS.Timeout | undefined;
  private slice = 0;
  private serving: ServingIdentity | undefined;
  /** the port bound (useful when configured as 0) */
  port = 0;

  constructor(
    private readonly streams: AgentStreamService,
    private readonly sessions: AgentSessions,
    private readonly links: AgentLinksRepository,
    private readonly agentCa: AgentCa,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { host, port } = this.config.agents;
    // streams this replica held before a crash are gone; on the embedded database it is the only replica, so every stream is
    if (this.config.databaseUrl === undefined) await this.links.disconnectAll();
    else await this.links.disconnectAllOf(this.config.scheduler.hubId);
    const serving = (this.serving = new ServingIdentity(this.agentCa.ca, servingNames(this.config.agents)));
    await serving.refresh();
    const server = new Server(AGENT_SERVER_OPTIONS);
    server.addService(AGENT_SERVICE_DEFINITION, {
      register: (call: ServerUnaryCall<RegisterRequest, RegisterResponse>, done: sendUnaryData<RegisterResponse>) => void this.register(call.request, done),
      connect: (stream: Parameters<AgentStreamService['open']>[0]) => void this.streams.open(stream),
    });
    const bound = await new Promise<number>((resolve, reject) =>
      server.bindAsync(`${host.includes(':') ? `[${host}]` : host}:${port}`, serving.credentials(), (err, p) => (err ? reject(err) : resolve(p))),
    );
    this.server = server;
    this.port = bound;
    this.logger.info({ address: `${host}:${bound}` }, 'agent gRPC server listening');
    this.timer = setInterval(() => void this.watch().catch((err: unknown) => this.logger.warn({ err: String(err) }, 'agent watch failed')), this.config.agents.heartbeatMs);
    this.timer.unref();
    this.heartbeats = setInterval(() => this.beat(), this.config.agents.heartbeatMs / HEARTBEAT_SLICES);
    this.heartbeats.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    clearInterval(this.heartbeats);
    for (const s of this.sessions.all()) s.close('the hub is shutting down');
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => {
        server.forceShutdown();
        resolve();
      }, 2000);
      server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    });
  }

  /**
   * The one-time bootstrap token and a CSR for the agent's client
   * certificate. A bad CSR is refused before the token is used, so the agent
   * can try again with it.
   */
  private async register(req: RegisterRequest, done: sendUnaryData<RegisterResponse>): Promise<void> {
    try {
      const refused = { code: GrpcStatus.UNAUTHENTICATED, details: 'bootstrap token unknown, used or expired: get a new one from the hub (POST /api/v1/clusters/{name}/agent/reset or the install manifest)' };
      const over = oversizedRegisterField(req);
      if (over) return done({ code: GrpcStatus.INVALID_ARGUMENT, details: `RegisterRequest.${describeOversized(over)}` });
      if (!looksLikeBootstrapToken(req.bootstrapToken)) return done(refused);
      const tokenHash = secretHash(req.bootstrapToken);
      const cluster = await this.links.bootstrapIdentity(tokenHash);
      if (!cluster) return done(refused);
      let issued;
      try {
        issued = await this.agentCa.ca.signAgent(req.csrPem, { id: cluster.clusterId, name: cluster.clusterName }, this.config.agents.certTtlMs);
      } catch (err) {
        if (err instanceof BadCertificateRequest) return done({ code: GrpcStatus.INVALID_ARGUMENT, details: err.message });
        throw err;
      }
      // used once: of two registrations racing with one token, one gets here
      const identity = await this.links.redeemBootstrap(tokenHash, { fingerprint: certificateFingerprint(issued.pem), notAfter: issued.notAfter });
      if (!identity) return done(refused);
      // an older stream of this cluster holds a certificate that no longer counts
      this.sessions.cutHere(identity.clusterId, 'the agent registered again');
      this.logger.info({ cluster: identity.clusterName, agentVersion: req.agentVersion, certExpires: issued.notAfter.toISOString() }, 'agent registered');
      done(null, { clusterName: identity.clusterName, credential: '', certificatePem: issued.pem, caPem: this.agentCa.certPem });
    } catch (err) {
      this.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'agent registration failed');
      done({ code: GrpcStatus.UNAVAILABLE, details: 'the hub could not register the agent now; try again' });
    }
  }

  /** One slice of the agents: a heartbeat out to each, or its stream closed when it went silent. */
  private beat(): void {
    const slice = this.slice;
    this.slice = (slice + 1) % HEARTBEAT_SLICES;
    const now = Date.now();
    const sentAt = new Date(now);
    for (const s of this.sessions.all()) {
      if (s.slot % HEARTBEAT_SLICES !== slice) continue;
      if (now - s.lastSeen > this.config.agents.heartbeatTimeoutMs) s.close(`no message from the agent for ${this.config.agents.heartbeatTimeoutMs} ms`);
      else s.send({ body: { $case: 'heartbeat', value: { sentAt } } });
    }
  }

  /** Revoked agents cut off; the serving certificate renewed when due. */
  private async watch(): Promise<void> {
    await this.serving?.refresh();
    const all = this.sessions.all();
    if (all.length === 0) return;
    const valid = await this.links.validFingerprints(all.map((s) => s.identity.clusterId));
    for (const s of all) if (!valid.get(s.identity.clusterId)?.has(s.fingerprint)) s.close('the agent\'s certificate was revoked or replaced');
  }
}
