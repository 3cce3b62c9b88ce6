import { Inject, Injectable, type OnModuleDestroy, ServiceUnavailableException } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { HUB_LOGGER } from '../logging/logging.module';
import { FleetRepository } from '../repositories/fleet.repository';

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
 */
@Injectable()
export class FleetStream implements OnModuleDestroy {
  private readonly streams = new Set<ServerResponse>();
  private timer: NodeJS.Timeout | undefined;
  private lastMark: string | undefined;
  private ticking: Promise<void> | undefined;
  private sinceKeepalive = 0;
  /** a field so a spec can reach the limit with a few streams */
  maxStreams = MAX_LIVE_STREAMS;

  constructor(
    private readonly fleet: FleetRepository,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
  ) {}

  get size(): number {
    return this.streams.size;
  }

  /** Takes over `res` until the client goes away or the hub stops. */
  open(res: ServerResponse): void {
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
    this.streams.add(res);
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
    for (const res of this.streams) res.end();
    this.streams.clear();
  }

  private async poll(): Promise<void> {
    if (this.streams.size === 0) {
      // nobody listens: stop asking the database; the next stream restarts from a fresh mark
      this.stopTimer();
      this.lastMark = undefined;
      return;
    }
    let mark: string;
    try {
      mark = await this.fleet.changeMark();
    } catch (err) {
      this.logger.warn({ reason: err instanceof Error ? err.message : String(err) }, 'live stream: reading the change mark failed; trying again next tick');
      return;
    }
    const changed = this.lastMark !== undefined && mark !== this.lastMark;
    this.lastMark = mark;
    this.sinceKeepalive += LIVE_TICK_MS;
    for (const res of this.streams) {
      if (changed) this.send(res, 'change', {});
      else if (this.sinceKeepalive >= KEEPALIVE_MS) res.write(': keepalive\n\n');
    }
    if (this.sinceKeepalive >= KEEPALIVE_MS) this.sinceKeepalive = 0;
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
