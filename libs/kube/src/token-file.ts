// A bearer token read from a file that may be replaced while we run (bound
// service-account tokens rotate): re-read at most every `refreshMs`, or at once
// after the server rejected the token.
import { open } from 'node:fs/promises';
import { ConnectionConfigError } from './errors';

/** Tokens are a few KiB at most; anything larger is not a token file. */
const MAX_TOKEN_BYTES = 64 * 1024;

export class TokenFile {
  private cached: string | undefined;
  private readAt = 0;
  private reading: Promise<string> | undefined;

  constructor(
    readonly path: string,
    /** client-go re-reads every minute */
    readonly refreshMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The current token (cached for `refreshMs`). */
  async token(): Promise<string> {
    if (this.cached !== undefined && this.now() - this.readAt < this.refreshMs) return this.cached;
    // one read at a time: concurrent requests share it
    this.reading ??= this.read().finally(() => (this.reading = undefined));
    return this.reading;
  }

  /** Forgets the cached token, e.g. after a 401, so the next request reads the file again. */
  invalidate(): void {
    this.cached = undefined;
  }

  private async read(): Promise<string> {
    let text: string;
    try {
      const file = await open(this.path, 'r');
      try {
        const buf = Buffer.alloc(MAX_TOKEN_BYTES + 1);
        const { bytesRead } = await file.read(buf, 0, buf.length, 0);
        if (bytesRead > MAX_TOKEN_BYTES) throw new ConnectionConfigError(`token file ${this.path} is larger than ${MAX_TOKEN_BYTES} bytes`);
        text = buf.subarray(0, bytesRead).toString('utf8').trim();
      } finally {
        await file.close();
      }
    } catch (err) {
      if (err instanceof ConnectionConfigError) throw err;
      throw new ConnectionConfigError(`token file ${this.path} cannot be read: ${(err as { message?: string }).message ?? String(err)}`, { cause: err });
    }
    if (!text) throw new ConnectionConfigError(`token file ${this.path} is empty`);
    this.cached = text;
    this.readAt = this.now();
    return text;
  }
}
