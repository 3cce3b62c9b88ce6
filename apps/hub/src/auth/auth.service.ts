import { UUID } from '../common/validators';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { Clock } from '../common/clock';
import { ConflictError, InvalidInputError, NotFoundError, TooManyRequestsError, UnauthorizedError } from '../common/errors';
import type { Page } from '../common/paging';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { CryptoRepository } from '../crypto/crypto.repository';
import type { ApiTokenEntity } from '../database/entities';
import { HUB_LOGGER } from '../logging/logging.module';
import { NotificationBus } from '../notify/notification-bus';
import { UnitOfWork } from '../repositories/unit-of-work';
import { FailureLimiter } from './failure-limiter';
import { OidcAuthenticator } from './oidc-authenticator';
import { ANONYMOUS, type Principal, type Role, type TenantRole } from './roles';
import { TokenCache } from './token-cache';
import type { CreatedTokenDto, TokenDto } from './tokens.dto';
import { TokensRepository } from '../repositories/tokens.repository';
import { requireGlobal } from '../tenancy/tenant-scope';

// Writing last_used_at on every request would turn reads into writes; once a minute is enough.
const TOUCH_INTERVAL_MS = 60_000;
/** How long another replica's revocation may take to reach this one when its notice is lost. */
export const TOKEN_CACHE_TTL_MS = 2000;
/** Source addresses whose failures are remembered at once (least recently seen forgotten first). */
const MAX_FAILURE_SOURCES = 10_000;

@Injectable()
export class AuthService {
  private readonly cache = new TokenCache(TOKEN_CACHE_TTL_MS);
  private readonly failures: FailureLimiter;

  constructor(
    private readonly tokens: TokensRepository,
    private readonly uow: UnitOfWork,
    private readonly crypto: CryptoRepository,
    private readonly clock: Clock,
    private readonly bus: NotificationBus,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
    private readonly oidc: OidcAuthenticator,
  ) {
    this.failures = new FailureLimiter({ limit: config.auth.failureLimit, windowMs: config.auth.failureWindowMs, maxSources: MAX_FAILURE_SOURCES });
    // a revocation on any replica: forget the tokens here too, before the cache's TTL would
    bus.on((n) => {
      if (n.topic === 'tokens-revoked') for (const id of n.tokenIds) this.cache.evict(id);
    });
  }

  /**
   * Resolves an `Authorization` header to a principal; throws UnauthorizedError
   * otherwise. `source` is the caller's address: one that sent too many wrong
   * tokens gets 429 until its window ends, whatever it sends meanwhile.
   */
  async authenticate(header: string | undefined, source?: string): Promise<Principal> {
    if (header === undefined && this.config.anonymousViewer) return ANONYMOUS;
    const nowMs = this.clock.now().getTime();
    if (source !== undefined) {
      const waitMs = this.failures.retryAfterMs(source, nowMs);
      if (waitMs > 0) {
        const seconds = Math.ceil(waitMs / 1000);
        throw new TooManyRequestsError(`too many failed authentications from ${source}; retry in ${seconds} s`, seconds);
      }
    }
    if (header === undefined) throw new UnauthorizedError('missing bearer token: send "Authorization: Bearer <token>"');
    try {
      const token = bearerToken(header);
      // a JWT from the configured provider; anything else is looked up as a static token, as before
      return await (this.oidc.handles(token) ? this.oidc.authenticate(token) : this.principalOf(token, nowMs));
    } catch (err) {
      if (source !== undefined && err instanceof UnauthorizedError) this.failures.fail(source, nowMs);
      throw err;
    }
  }

  /**
   * Checks a scrape of /metrics. With FLOTILLA_METRICS_TOKEN set, that token
   * alone (compared in constant time; wrong ones count against the source
   * like any failed authentication). Without it, an API token of a global
   * principal: the series name every tenant's Projects, repositories and
   * clusters, so tenant members are refused, and anonymous callers unless
   * the hub lets anyone read.
   */
  async checkMetricsAccess(header: string | undefined, source?: string): Promise<void> {
    const expected = this.config.auth.metricsToken;
    if (expected === undefined) {
      if (header === undefined && !this.config.anonymousViewer) {
        throw new UnauthorizedError('/metrics needs a bearer token: a global API token (FLOTILLA_METRICS_TOKEN is unset): send "Authorization: Bearer <token>"');
      }
      requireGlobal(await this.authenticate(header, source), 'GET /metrics');
      return;
    }
    const nowMs = this.clock.now().getTime();
    if (source !== undefined) {
      const waitMs = this.failures.retryAfterMs(source, nowMs);
      if (waitMs > 0) throw new TooManyRequestsError(`too many failed authentications from ${source}; retry in ${Math.ceil(waitMs / 1000)} s`, Math.ceil(waitMs / 1000));
    }
    if (header === undefined) throw new UnauthorizedError('/metrics needs FLOTILLA_METRICS_TOKEN: send "Authorization: Bearer <it>"');
    try {
      const given = bearerToken(header);
      if (!this.crypto.sameSecret(given, expected)) throw new UnauthorizedError('wrong metrics token');
    } catch (err) {
      if (source !== undefined) this.failures.fail(source, nowMs);
      throw err;
    }
  }

  /** Whether the token behind a principal still holds (not revoked, not expired): live streams ask on each tick. */
  async stillValid(principal: Principal): Promise<boolean> {
    if (principal.oidc) return this.oidc.stillValid(principal);
    if (principal === ANONYMOUS || !principal.tokenHash) return principal === ANONYMOUS;
    try {
      await this.principalOf(undefined, this.clock.now().getTime(), principal.tokenHash);
      return true;
    } catch (err) {
      if (err instanceof UnauthorizedError) return false;
      throw err;
    }
  }

  private async principalOf(token: string | undefined, nowMs: number, knownHash?: string): Promise<Principal> {
    const hash = knownHash ?? this.crypto.sha256Hex(token!);
    let row = this.cache.get(hash, nowMs);
    if (!row) {
      row = (await this.tokens.findActiveByHash(hash)) ?? undefined;
      if (!row) throw new UnauthorizedError('unknown or revoked token');
      this.cache.set(hash, row, nowMs);
    }
    if (row.expiresAt && row.expiresAt.getTime() <= nowMs) throw new UnauthorizedError(`token expired: "${row.name}" expired at ${row.expiresAt.toISOString()}; ask an admin for a new one`);
    if (!row.lastUsedAt || nowMs - row.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
      const now = new Date(nowMs);
      await this.tokens.touch(row.id, now);
      row.lastUsedAt = now;
    }
    const tenants = row.tenant ? { tenants: { [row.tenant]: row.role as TenantRole } } : {};
    return { tokenId: row.id, name: row.name, role: row.role, ...tenants, tokenHash: hash, expiresAt: row.expiresAt?.getTime() ?? null };
  }

  /**
   * Makes sure an admin can get in. FLOTILLA_ADMIN_TOKEN is registered (source
   * 'env') if it is not yet, and any token an earlier value of the variable
   * registered is revoked, also when the variable is now unset. With no usable
   * admin token left (first start, or the variable's token just revoked), one
   * is generated and returned for the caller to hand over once.
   */
  async bootstrapAdmin(): Promise<string | undefined> {
    const envHash = this.config.adminToken ? this.crypto.sha256Hex(this.config.adminToken) : undefined;
    const now = this.clock.now();
    const revoked = await this.uow.transaction(async (tx) => {
      if (envHash) {
        if (await tx.tokens.insertIfAbsent({ name: 'admin', role: 'admin', tokenHash: envHash, source: 'env' })) {
          this.logger.info({ tokenName: 'admin' }, 'registered FLOTILLA_ADMIN_TOKEN as an admin token');
        } else {
          const existing = await tx.tokens.findByHash(envHash);
          // a row from before sources were recorded
          if (existing?.source === 'api') await tx.tokens.setSource(envHash, 'env');
          if (existing?.revokedAt) this.logger.warn({ tokenName: existing.name }, 'FLOTILLA_ADMIN_TOKEN was revoked and stays revoked; set a new value');
        }
      }
      return tx.tokens.revokeFromSourceExcept('env', envHash, now);
    });
    if (revoked.length > 0) {
      for (const id of revoked) this.cache.evict(id);
      this.bus.publish({ topic: 'tokens-revoked', tokenIds: revoked });
      this.logger.warn({ count: revoked.length }, envHash ? 'revoked the admin token an earlier FLOTILLA_ADMIN_TOKEN registered' : 'FLOTILLA_ADMIN_TOKEN is unset: revoked the admin token it registered');
    }
    if (envHash) return undefined;
    if ((await this.tokens.countUsableAdmins(now)) > 0) return undefined;
    const token = this.crypto.newToken();
    await this.tokens.insert({ name: 'admin', role: 'admin', tokenHash: this.crypto.sha256Hex(token), source: 'generated' });
    this.logger.info({ tokenName: 'admin' }, 'generated the first admin token');
    return token;
  }

  /** A token for `tenant` acts only in it, as viewer or operator (admin is global only). */
  async create(name: string, role: Role, expiresAt?: string, tenant?: string): Promise<CreatedTokenDto> {
    const expiry = this.expiryOf(expiresAt);
    const token = this.crypto.newToken();
    const saved = await this.uow.transaction(async (tx) => {
      if (tenant !== undefined && !(await tx.tenants.lock(tenant))) throw new NotFoundError('tenant', tenant);
      return tx.tokens.insert({ name, role, tokenHash: this.crypto.sha256Hex(token), expiresAt: expiry, source: 'api', tenant: tenant ?? null });
    });
    return { ...toTokenDto(saved), token };
  }

  async list(limit: number, offset: number): Promise<Page<TokenDto>> {
    const [rows, total] = await this.tokens.list(limit, offset);
    return { items: rows.map(toTokenDto), total, limit, offset };
  }

  /** `caller` is who asks: revoking one's own token would lock the caller out mid-session, so it is refused. */
  async revoke(id: string, caller?: Principal): Promise<TokenDto> {
    const token = UUID.test(id) ? await this.tokens.findById(id) : null;
    if (!token) throw new NotFoundError('token', id);
    if (caller?.tokenId === token.id) throw new ConflictError(`token "${token.name}" is the one making this request; revoke it with another admin token`);
    if (!token.revokedAt) await this.tokens.revoke(id, this.clock.now());
    this.cache.evict(id);
    // every replica (this one too) forgets it and closes its live streams
    this.bus.publish({ topic: 'tokens-revoked', tokenIds: [id] });
    return toTokenDto((await this.tokens.findById(id))!);
  }

  /** Tokens that stopped existing (their tenant was deleted): refused here at once, on other replicas by the notice. */
  forget(tokenIds: string[]): void {
    if (tokenIds.length === 0) return;
    for (const id of tokenIds) this.cache.evict(id);
    this.bus.publish({ topic: 'tokens-revoked', tokenIds });
  }

  /** The expiry a new token gets: in the future, and within FLOTILLA_TOKEN_MAX_LIFETIME when that is set. */
  private expiryOf(expiresAt: string | undefined): Date | null {
    const max = this.config.auth.tokenMaxLifetimeMs;
    const now = this.clock.now().getTime();
    if (expiresAt === undefined) {
      if (max !== undefined) throw new InvalidInputError([`expiresAt: required; this hub allows tokens of at most ${Math.floor(max / 1000)} s (FLOTILLA_TOKEN_MAX_LIFETIME); give an ISO 8601 time before ${new Date(now + max).toISOString()}`]);
      return null;
    }
    const at = new Date(expiresAt);
    if (at.getTime() <= now) throw new InvalidInputError([`expiresAt: ${expiresAt} is not in the future; give a later time`]);
    if (max !== undefined && at.getTime() > now + max) throw new InvalidInputError([`expiresAt: ${expiresAt} is beyond this hub's maximum token lifetime of ${Math.floor(max / 1000)} s (FLOTILLA_TOKEN_MAX_LIFETIME); give a time before ${new Date(now + max).toISOString()}`]);
    return at;
  }
}

/** The token of a `Bearer <token>` header, parsed without a regular expression. */
function bearerToken(header: string): string {
  const text = header.trim();
  const space = text.search(/\s/);
  const scheme = space < 0 ? text : text.slice(0, space);
  const token = space < 0 ? '' : text.slice(space).trim();
  if (scheme.toLowerCase() !== 'bearer' || token === '' || /\s/.test(token)) throw new UnauthorizedError('missing bearer token: send "Authorization: Bearer <token>"');
  return token;
}

/** The shape PostgreSQL's uuid type accepts; anything else is no token (and never reaches the database). */

function toTokenDto(t: ApiTokenEntity): TokenDto {
  return {
    id: t.id,
    name: t.name,
    role: t.role,
    tenant: t.tenant ?? null,
    createdAt: t.createdAt.toISOString(),
    expiresAt: t.expiresAt?.toISOString() ?? null,
    revokedAt: t.revokedAt?.toISOString() ?? null,
    lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
  };
}
