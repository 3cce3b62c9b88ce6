import { Check, Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Who acted: an API token, a person signed in through OIDC, or nobody known (a refused request without a valid token). */
export type ActorKind = 'token' | 'oidc' | 'anonymous';
export const ACTOR_KINDS: readonly ActorKind[] = ['token', 'oidc', 'anonymous'];

/**
 * One mutating or refused API request. Append-only: a trigger refuses UPDATE,
 * TRUNCATE and any DELETE but the retention purge's (migration AuditLog).
 */
@Entity('audit_entries')
@Check('ck_audit_entries_actor_kind', `"actor_kind" IN ('token', 'oidc', 'anonymous')`)
@Index('idx_audit_entries_at', ['at', 'id'])
@Index('idx_audit_entries_actor_id_at', ['actorId', 'at', 'id'])
@Index('idx_audit_entries_actor_name_at', ['actorName', 'at', 'id'])
@Index('idx_audit_entries_object_at', ['objectKind', 'objectName', 'at', 'id'])
@Index('idx_audit_entries_tenant_at', ['tenant', 'at', 'id'])
export class AuditEntryEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_audit_entries' })
  id!: string;

  /** when the response was sent, from the hub's Clock */
  @Column({ type: 'timestamptz' })
  at!: Date;

  @Column({ name: 'actor_kind', type: 'varchar', length: 16 })
  actorKind!: ActorKind;

  /** the token's id, the OIDC subject, or 'anonymous' */
  @Column({ name: 'actor_id', type: 'varchar', length: 255 })
  actorId!: string;

  /** the token's name, or the person's display name */
  @Column({ name: 'actor_name', type: 'varchar', length: 255 })
  actorName!: string;

  @Column({ name: 'actor_email', type: 'varchar', length: 320, nullable: true })
  actorEmail!: string | null;

  /** the tenant the request acted in; null for a global caller's hub-wide requests */
  @Column({ type: 'varchar', length: 63, nullable: true })
  tenant!: string | null;

  /** method and route pattern, e.g. `DELETE /api/v1/projects/:name`; never the raw URL */
  @Column({ type: 'varchar', length: 300 })
  action!: string;

  /** e.g. `project`; null when the route names no kind */
  @Column({ name: 'object_kind', type: 'varchar', length: 32, nullable: true })
  objectKind!: string | null;

  /** e.g. `web`; null for a whole collection or an unnamed object */
  @Column({ name: 'object_name', type: 'varchar', length: 253, nullable: true })
  objectName!: string | null;

  /** the HTTP status answered */
  @Column({ type: 'integer' })
  outcome!: number;

  @Column({ name: 'request_id', type: 'varchar', length: 64 })
  requestId!: string;

  /** the TCP peer's address */
  @Column({ name: 'source_address', type: 'varchar', length: 64, nullable: true })
  sourceAddress!: string | null;
}
