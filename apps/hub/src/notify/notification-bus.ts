import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Client } from 'pg';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { HUB_LOGGER } from '../logging/logging.module';

/** What replicas tell each other. Small: NOTIFY payloads stay far below PostgreSQL's 8000 bytes. */
export type HubNotice =
  | { topic: 'runs-due' }
  | { topic: 'agent-cut'; clusterId: string; reason: string; /** epoch ms: streams opened later are not cut */ before: number }
  /** a fleet diff for the replica that holds the cluster's agent (the request is in agent_diff_relays) */
  | { topic: 'agent-diff'; id: string; clusterId: string }
  | { topic: 'agent-diff-answered'; id: string }
  /** an upgrade for the replica that holds the cluster's agent: it sends its own configured image, the notice names none */
  | { topic: 'agent-upgrade'; clusterId: string }
  /** API tokens revoked: every replica forgets them and closes their live streams */
  | { topic: 'tokens-revoked'; tokenIds: string[] }
  /** a tenant's rules changed or it was deleted: every replica drops the tenant reaches it keeps */
  | { topic: 'tenants-changed' }
  /** single sign-on bindings changed: every replica drops its cached copy, so a removal ends access at once */
  | { topic: 'oidc-bindings-changed' };

const CHANNEL = 'flotilla_hub';
/** a notice is a hint; one lost to a reconnect is made good by the next tick or watch */
const RECONNECT_MS = 1000;
const CONNECT_DEADLINE_MS = 10_000;

/**
 * Notices between hub replicas through PostgreSQL LISTEN/NOTIFY, so a change
 * decided on one replica (Targets due, an agent to cut off) reaches the
 * others at once instead of at their next tick. Every replica, the sender
 * too, hears each notice. On the embedded database (one replica) it stays in
 * process.
 */
@Injectable()
export class NotificationBus implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly handlers: Array<(n: HubNotice) => void> = [];
  private listener: Client | undefined;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly ds: DataSource,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
  ) {}

  on(handler: (n: HubNotice) => void): void {
    this.handlers.push(handler);
  }

  /** Tells every replica (this one included). Never throws: a lost notice only costs latency. */
  publish(notice: HubNotice): void {
    if (!this.config.databaseUrl) return this.deliver(notice);
    this.ds.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify(notice)]).catch((err: unknown) => {
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'notice not sent; delivering it here only');
      this.deliver(notice);
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.databaseUrl) await this.listen();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.listener?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({ connectionString: this.config.databaseUrl, connectionTimeoutMillis: CONNECT_DEADLINE_MS, keepAlive: true });
    client.on('notification', (m) => {
      if (m.channel !== CHANNEL || !m.payload) return;
      try {
        this.deliver(JSON.parse(m.payload) as HubNotice);
      } catch {
        this.logger.warn('unreadable notice ignored');
      }
    });
    const again = (err: unknown) => {
      if (this.stopped || this.listener !== client) return;
      this.listener = undefined;
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'lost the notice channel; listening again shortly');
      client.end().catch(() => undefined);
      this.retry = setTimeout(() => void this.listen(), RECONNECT_MS);
      // what was missed meanwhile: every replica looks for due work
      this.deliver({ topic: 'runs-due' });
    };
    client.on('error', again);
    client.on('end', () => again(new Error('connection ended')));
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (err) {
      again(err);
    }
  }

  private deliver(n: HubNotice): void {
    for (const h of this.handlers) {
      try {
        h(n);
      } catch (err) {
        this.logger.error({ err: err instanceof Error ? err.message : String(err), topic: n.topic }, 'notice handler failed');
      }
    }
  }
}
