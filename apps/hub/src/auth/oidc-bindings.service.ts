import { UUID } from '../common/validators';
import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { ConflictError, InvalidInputError, NotFoundError } from '../common/errors';
import type { Page } from '../common/paging';
import type { OidcBindingEntity } from '../database/entities';
import { NotificationBus } from '../notify/notification-bus';
import { OidcBindingsRepository } from '../repositories/oidc-bindings.repository';
import { BindingIndex } from './oidc-principal';
import type { CreateOidcBindingDto, OidcBindingDto } from './oidc-bindings.dto';

/**
 * How long a replica serves bindings from memory. A removal evicts them on
 * every replica at once (a notice); this bounds how long a lost notice can
 * keep a removed binding working.
 */
export const BINDINGS_CACHE_TTL_MS = 5000;
/** Bindings a hub holds at most: each replica keeps them all in memory. */
export const MAX_BINDINGS = 10_000;

/** Claim bindings: who, signed in through the provider, gets which role where. */
@Injectable()
export class OidcBindingsService {
  private cached: { index: BindingIndex; until: number } | undefined;
  private loading: Promise<BindingIndex> | undefined;
  /** bumped by every eviction: a load that started before one does not refill the cache */
  private generation = 0;

  constructor(
    private readonly repo: OidcBindingsRepository,
    private readonly clock: Clock,
    private readonly bus: NotificationBus,
  ) {
    bus.on((n) => {
      if (n.topic === 'oidc-bindings-changed') this.evict();
    });
  }

  /** The bindings, from a cache of at most BINDINGS_CACHE_TTL_MS; concurrent misses share one query. */
  async index(): Promise<BindingIndex> {
    const now = this.clock.now().getTime();
    if (this.cached && this.cached.until > now) return this.cached.index;
    if (this.loading) return this.loading;
    const generation = this.generation;
    const loading = this.repo.all().then((rows) => {
      const index = new BindingIndex(rows);
      if (generation === this.generation) this.cached = { index, until: this.clock.now().getTime() + BINDINGS_CACHE_TTL_MS };
      return index;
    });
    this.loading = loading;
    try {
      return await loading;
    } finally {
      if (this.loading === loading) this.loading = undefined;
    }
  }

  async create(dto: CreateOidcBindingDto): Promise<OidcBindingDto> {
    const tenant = dto.tenant ?? null;
    if (dto.role === 'admin' && tenant !== null) throw new InvalidInputError(['role: admin is only ever global; omit tenant, or bind viewer or operator in the tenant']);
    const result = await this.repo.insert({ claim: dto.claim, value: dto.value, tenant, role: dto.role }, MAX_BINDINGS);
    if (result.kind === 'exists') throw new ConflictError(`a binding of ${dto.claim} "${dto.value}" ${tenant === null ? 'globally' : `in tenant "${tenant}"`} already exists; delete it first to change its role`);
    if (result.kind === 'no-tenant') throw new NotFoundError('tenant', tenant ?? '');
    if (result.kind === 'full') throw new ConflictError(`this hub holds ${MAX_BINDINGS} bindings, the most it keeps; bind groups rather than subjects, or delete unused bindings`);
    this.changed();
    return toDto(result.binding);
  }

  async list(limit: number, offset: number): Promise<Page<OidcBindingDto>> {
    const [rows, total] = await this.repo.list(limit, offset);
    return { items: rows.map(toDto), total, limit, offset };
  }

  /** Deletes the binding; every replica forgets it at once, and live streams it allowed close at their next check. */
  async delete(id: string): Promise<OidcBindingDto> {
    const binding = UUID.test(id) ? await this.repo.findById(id) : null;
    if (!binding || !(await this.repo.delete(id))) throw new NotFoundError('oidc binding', id);
    this.changed();
    return toDto(binding);
  }

  private changed(): void {
    this.evict();
    this.bus.publish({ topic: 'oidc-bindings-changed' });
  }

  private evict(): void {
    this.generation++;
    this.cached = undefined;
    this.loading = undefined;
  }
}


function toDto(b: OidcBindingEntity): OidcBindingDto {
  return { id: b.id, claim: b.claim, value: b.value, tenant: b.tenant, role: b.role, createdAt: b.createdAt.toISOString() };
}
