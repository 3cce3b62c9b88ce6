import type { ApiTokenEntity } from '../database/entities';

/**
 * Tokens this replica found active in the last `ttlMs`, by hash, so a busy
 * client costs one lookup per TTL rather than one per request. Revoking
 * through this replica evicts at once; another replica's revocation takes
 * effect here within the TTL. An entry never outlives the token's own expiry.
 * Bounded: when full, it starts over.
 */
export class TokenCache {
  private readonly entries = new Map<string, { token: ApiTokenEntity; expiresAt: number }>();

  constructor(
    readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(hash: string, nowMs: number): ApiTokenEntity | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (entry.expiresAt <= nowMs) {
      this.entries.delete(hash);
      return undefined;
    }
    return entry.token;
  }

  set(hash: string, token: ApiTokenEntity, nowMs: number): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    const until = token.expiresAt ? Math.min(nowMs + this.ttlMs, token.expiresAt.getTime()) : nowMs + this.ttlMs;
    this.entries.set(hash, { token, expiresAt: until });
  }

  evict(tokenId: string): void {
    for (const [hash, entry] of this.entries) if (entry.token.id === tokenId) this.entries.delete(hash);
  }
}
