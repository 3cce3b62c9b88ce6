import { Inject, Injectable, type OnModuleDestroy, ServiceUnavailableException } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { AuthService } from '../auth/auth.service';
import type { Principal } from '../auth/roles';
import { Clock } from '../common/clock';
import { HUB_LOGGER } from '../logging/logging.module';
import { NotificationBus } from '../notify/notification-bus';
import { FleetRepository } from '../repositories/fleet.repository';
import { TenantReaches } from '../tenancy/tenant-reach';

/** Open streams per hub replica; one more is refused with 503 rather than holding memory and sockets without bound. */
export const MAX_LIVE_STREAMS = 200;
/** How often the database is asked whether anything changed, while anyone listens: a change shows within this plus a reload. */
export const LIVE_TICK_MS = 400;
/** A comment line this often keeps idle proxies from closing the stream. */
const KEEPALIVE_MS = 15_000;

/**
 * Server-Sent Events for the status page: `hello` when a stream opens, then
 * `change` whenever the fleet's rows changed (FleetRepository.changeMark),
 * whoever changed them. The event carries no data to apply, only the news:
 * the page reloads what it shows through the API, with the viewer's token.
 * A stream lives no longer than its token: a revocation closes it at once on
 * every replica (the `tokens-revoked` notice), and each tick asks again
 * whether the token holds (expiry, or a notice that was lost), so it ends
 * within the token cache's TTL at worst. It ends with `event: unauthorized`.
 */
@Injectable()
export class FleetStream implements OnModuleDestroy {
  private readonly streams = new Map<ServerResponse, Principal>();
  private timer: NodeJS.Timeout | undefined;
  /** the last mark per audience: `*` for global principals, else the tenants a member sees */
  private lastMarks = new Map<string, string>();
  private ticking: Promise<void> | undefined;
  private sinceKeepalive = 0;
  /** a field so a spec can reach the limit with a few streams */
  maxStreams = MAX_LIVE_STREAMS;

  constructor(
    private readonly fleet: FleetRepository,
    private readonly auth: AuthService,
    private readonly clock: Clock,
    private readonly reaches: TenantReaches,
    bus: NotificationBus,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
  ) {
    bus.on((n) => {
      if (n.topic !== 'tokens-revoked') return;
      for (const [res, principal] of this.streams) if (n.tokenIds.includes(principal.tokenId)) this.close(res, 'token revoked');
    });
  }

  get size(): number {
    return this.streams.size;
  }

  /** Takes over `res` until the client goes away, its token stops holding, or the hub stops. */
  open(res: ServerResponse, principal: Principal): void {
    if (this.streams.size >= this.maxStreams) {
      throw new ServiceUnavailableException(`this hub serves at most ${this.maxStreams} live streams; retry later or reload by hand`);
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // a reverse proxy must pass events on as they come
      'x-accel-buffering': 'no',
    });
    res.socket?.setNoDelay(true);
    this.streams.set(res, principal);
    res.on('close', () => this.streams.delete(res));
    res.on('drain', () => this.send(res, 'change', {}));
    this.send(res, 'hello', { tickMs: LIVE_TICK_MS });
    this.timer ??= setInterval(() => void this.tick(), LIVE_TICK_MS);
  }

  /** One poll: broadcasts `change` when the mark moved. Returns once done (tests drive it by hand). */
  tick(): Promise<void> {
    this.ticking ??= this.poll().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  onModuleDestroy(): void {
    this.stopTimer();
    for (const res of this.streams.keys()) res.end();
    this.streams.clear();
  }

  private async poll(): Promise<void> {
    if (this.streams.size === 0) {
      // nobody listens: stop asking the database; the next stream restarts from a fresh mark
      this.stopTimer();
      this.lastMarks = new Map();
      return;
    }
    await this.dropUntrusted();
    // one mark per audience: a tenant member hears only of changes to what it may see
    const audiences = new Map<string, Principal>();
    for (const p of this.streams.values()) audiences.set(audienceOf(p), p);
    const changed = new Set<string>();
    const marks = new Map<string, string>();
    try {
      for (const [key, principal] of audiences) {
        const mark = await this.fleet.changeMark(await this.reaches.of(principal));
        const last = this.lastMarks.get(key);
        if (last !== undefined && last !== mark) changed.add(key);
        marks.set(key, mark);
      }
    } catch (err) {
      this.logger.warn({ reason: err instanceof Error ? err.message : String(err) }, 'live stream: reading the change mark failed; trying again next tick');
      return;
    }
    this.lastMarks = marks;
    this.sinceKeepalive += LIVE_TICK_MS;
    for (const [res, principal] of this.streams) {
      if (changed.has(audienceOf(principal))) this.send(res, 'change', {});
      else if (this.sinceKeepalive >= KEEPALIVE_MS) res.write(': keepalive\n\n');
    }
    if (this.sinceKeepalive >= KEEPALIVE_MS) this.sinceKeepalive = 0;
  }

  /** Ends the streams whose token expired or was revoked (one check per token, mostly from the token cache). */
  private async dropUntrusted(): Promise<void> {
    const nowMs = this.clock.now().getTime();
    const verdicts = new Map<string, Promise<string | undefined>>();
    const verdictOf = (p: Principal): Promise<string | undefined> => {
      if (p.expiresAt != null && p.expiresAt <= nowMs) return Promise.resolve('token expired');
      let v = verdicts.get(p.tokenId);
      if (!v) {
        v = this.auth.stillValid(p).then(
          (ok) => (ok ? undefined : 'token expired or revoked'),
          // the database is away: keep the stream; the next tick asks again
          () => undefined,
        );
        verdicts.set(p.tokenId, v);
      }
      return v;
    };
    for (const [res, principal] of [...this.streams]) {
      const reason = await verdictOf(principal);
      if (reason) this.close(res, reason);
    }
  }

  private close(res: ServerResponse, reason: string): void {
    this.streams.delete(res);
    if (!res.writableEnded) res.end(`event: unauthorized\ndata: ${JSON.stringify({ reason })}\n\n`);
  }

  private send(res: ServerResponse, event: string, data: object): void {
    // a client that does not read gets nothing more until it drains; `drain` then sends one change
    if (res.writableNeedDrain || res.writableEnded) return;
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

function audienceOf(p: Principal): string {
  return p.tenants ? Object.keys(p.tenants).sort().join(',') : '*';
}
