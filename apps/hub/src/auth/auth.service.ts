import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { Clock } from '../common/clock';
import { ConflictError, NotFoundError, UnauthorizedError } from '../common/errors';
import type { Page } from '../common/paging';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { CryptoRepository } from '../crypto/crypto.repository';
import type { ApiTokenEntity } from '../database/entities';
import { HUB_LOGGER } from '../logging/logging.module';
import { ANONYMOUS, type Principal, type Role } from './roles';
import { TokenCache } from './token-cache';
import type { CreatedTokenDto, TokenDto } from './tokens.dto';
import { TokensRepository } from '../repositories/tokens.repository';

// Writing last_used_at on every request would turn reads into writes; once a minute is enough.
const TOUCH_INTERVAL_MS = 60_000;
/** How long another replica's revocation may take to reach this one. */
const TOKEN_CACHE_TTL_MS = 2000;

@Injectable()
export class AuthService {
  private readonly cache = new TokenCache(TOKEN_CACHE_TTL_MS);

  constructor(
    private readonly tokens: TokensRepository,
    private readonly crypto: CryptoRepository,
    private readonly clock: Clock,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
  ) {}

  /** Resolves an `Authorization` header to a principal; throws UnauthorizedError otherwise. */
  async authenticate(header: string | undefined): Promise<Principal> {
    if (header === undefined && this.config.anonymousViewer) return ANONYMOUS;
    const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!m) throw new UnauthorizedError('missing bearer token: send "Authorization: Bearer <token>"');
    const hash = this.crypto.sha256Hex(m[1]);
    const now = this.clock.now();
    let token = this.cache.get(hash, now.getTime());
    if (!token) {
      token = (await this.tokens.findActiveByHash(hash)) ?? undefined;
      if (!token) throw new UnauthorizedError('unknown or revoked token');
      this.cache.set(hash, token, now.getTime());
    }
    if (!token.lastUsedAt || now.getTime() - token.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
      await this.tokens.touch(token.id, now);
      token.lastUsedAt = now;
    }
    return { tokenId: token.id, name: token.name, role: token.role };
  }

  /**
   * Makes sure an admin can get in: FLOTILLA_ADMIN_TOKEN is registered if it is
   * not yet; with no token at all, one is generated and returned for printing once.
   */
  async bootstrapAdmin(): Promise<string | undefined> {
    if (this.config.adminToken) {
      const hash = this.crypto.sha256Hex(this.config.adminToken);
      if (await this.tokens.insertIfAbsent({ name: 'admin', role: 'admin', tokenHash: hash })) {
        this.logger.info({ tokenName: 'admin' }, 'registered FLOTILLA_ADMIN_TOKEN as an admin token');
      }
      return undefined;
    }
    if ((await this.tokens.count()) > 0) return undefined;
    const token = this.crypto.newToken();
    await this.tokens.insert({ name: 'admin', role: 'admin', tokenHash: this.crypto.sha256Hex(token) });
    this.logger.info({ tokenName: 'admin' }, 'generated the first admin token');
    return token;
  }

  async create(name: string, role: Role): Promise<CreatedTokenDto> {
    const token = this.crypto.newToken();
    const saved = await this.tokens.insert({ name, role, tokenHash: this.crypto.sha256Hex(token) });
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
    return toTokenDto((await this.tokens.findById(id))!);
  }
}

/** The shape PostgreSQL's uuid type accepts; anything else is no token (and never reaches the database). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function toTokenDto(t: ApiTokenEntity): TokenDto {
  return {
    id: t.id,
    name: t.name,
    role: t.role,
    createdAt: t.createdAt.toISOString(),
    revokedAt: t.revokedAt?.toISOString() ?? null,
    lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
  };
}
