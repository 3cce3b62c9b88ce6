// A lost database is an outage, not a bug: requests get 503 with Retry-After,
// and the log says once that the database went away and once that it is back,
// instead of a stack trace per request.
import type { Logger } from 'pino';

/** node-postgres, TypeORM and PGlite words for "cannot reach the database". */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006']);
const CONNECTION_MESSAGES = /connection (is closed|terminated)|Connection terminated|database connection is closed|timeout exceeded when trying to connect|Client has encountered a connection error|PGlite is closed|Driver not Connected/i;

export function isDatabaseUnreachable(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown; driverError?: unknown }).driverError ?? (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && CONNECTION_MESSAGES.test(message)) return true;
  }
  return false;
}

export const RETRY_AFTER_SECONDS = 5;

export class DatabaseOutage {
  private down = false;
  private failedRequests = 0;

  constructor(private readonly logger: Logger) {}

  /** A request failed because the database is unreachable. */
  failed(err: unknown): void {
    this.failedRequests++;
    if (this.down) return;
    this.down = true;
    this.logger.error({ reason: reasonOf(err) }, 'database unreachable: answering 503 until it is back');
  }

  /** A request that reads the database was answered; a success means it is back. */
  answered(status: number): void {
    if (!this.down || status >= 300) return;
    this.down = false;
    this.logger.info({ failedRequests: this.failedRequests }, 'database reachable again');
    this.failedRequests = 0;
  }

  get isDown(): boolean {
    return this.down;
  }
}

function reasonOf(err: unknown): string {
  const code = (err as { code?: unknown; driverError?: { code?: unknown } })?.driverError?.code ?? (err as { code?: unknown })?.code;
  return typeof code === 'string' ? code : err instanceof Error ? err.constructor.name : 'unknown';
}
