import { isForeignKeyViolation } from './database-errors';
import type { EntityManager, Repository } from 'typeorm';
import { OidcBindingEntity } from '../database/entities';

export type NewOidcBinding = Pick<OidcBindingEntity, 'claim' | 'value' | 'tenant' | 'role'>;

/** What an insert came to: the row, or why there is none. */
export type BindingInsert = { kind: 'created'; binding: OidcBindingEntity } | { kind: 'exists' } | { kind: 'full' } | { kind: 'no-tenant' };

/** The claim bindings of single sign-on. */
export class OidcBindingsRepository {
  private readonly repo: Repository<OidcBindingEntity>;

  constructor(private readonly db: EntityManager) {
    this.repo = db.getRepository(OidcBindingEntity);
  }

  /** Every binding: the table is bounded (see insert), and the hub keeps it in memory for a few seconds. */
  all(): Promise<OidcBindingEntity[]> {
    return this.repo.find({ order: { createdAt: 'ASC', id: 'ASC' } });
  }

  list(limit: number, offset: number): Promise<[OidcBindingEntity[], number]> {
    return this.repo.findAndCount({ order: { createdAt: 'ASC', id: 'ASC' }, take: limit, skip: offset });
  }

  findById(id: string): Promise<OidcBindingEntity | null> {
    return this.repo.findOneBy({ id });
  }

  /** Inserts unless the same binding exists or the table already holds `max` rows, in one statement. */
  async insert(binding: NewOidcBinding, max: number): Promise<BindingInsert> {
    let rows: Array<{ id: string }>;
    try {
      rows = (await this.db.query(
      `INSERT INTO "oidc_bindings" ("claim", "value", "tenant", "role")
       SELECT $1, $2, $3, $4 WHERE (SELECT count(*) FROM "oidc_bindings") < $5
       ON CONFLICT ON CONSTRAINT "uq_oidc_bindings_claim_value_tenant" DO NOTHING
       RETURNING "id"`,
        [binding.claim, binding.value, binding.tenant, binding.role, max],
      )) as Array<{ id: string }>;
    } catch (err) {
      if (isForeignKeyViolation(err)) return { kind: 'no-tenant' };
      throw err;
    }
    if (rows.length === 1) return { kind: 'created', binding: (await this.findById(rows[0].id))! };
    return (await this.repo.count()) >= max ? { kind: 'full' } : { kind: 'exists' };
  }

  /** Deletes the binding; false when there was none. */
  async delete(id: string): Promise<boolean> {
    const res = await this.repo.delete({ id });
    return (res.affected ?? 0) > 0;
  }
}
