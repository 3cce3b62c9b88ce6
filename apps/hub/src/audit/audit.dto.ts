import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsISO8601, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import type { CrossFieldChecks } from '../common/validation.pipe';
import { CURSOR, CursorPageFields } from '../common/cursor';
import { Optional } from '../common/validators';
import { ACTOR_KINDS } from '../database/entities';

export const AUDIT_DEFAULT_LIMIT = 100;
export const AUDIT_MAX_LIMIT = 500;
const TIME_MESSAGE = 'must be an ISO 8601 time such as 2027-01-31T00:00:00Z';
/** `kind` or `kind/name`: a kind of 1-32 characters without "/", then optionally "/" and a name of at least one character; never NUL. */
// eslint-disable-next-line no-control-regex -- NUL is what it refuses (PostgreSQL cannot store it)
export const AUDIT_OBJECT = /^[^/\u0000]{1,32}(?:\/[^\u0000]+)?$/;
const AUDIT_OBJECT_MESSAGE = 'must be kind/name (e.g. project/web) or a kind alone (e.g. project): a kind of 1 to 32 characters without "/"';

/** `GET /api/v1/audit` */
export class AuditQuery implements CrossFieldChecks {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: AUDIT_MAX_LIMIT, default: AUDIT_DEFAULT_LIMIT })
  @Optional()
  @Type(() => Number)
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  @Max(AUDIT_MAX_LIMIT, { message: `must be at most ${AUDIT_MAX_LIMIT}` })
  limit: number = AUDIT_DEFAULT_LIMIT;

  @ApiPropertyOptional({ description: 'the `continue` of the previous page; absent for the first' })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Matches(CURSOR, { message: 'must be the continue token of a previous page' })
  continue?: string;

  @ApiPropertyOptional({ description: "entries of one actor: a token's id or name, an OIDC subject or name, or `anonymous`", maxLength: 255 })
  @Optional()
  @IsString({ message: 'must be a string' })
  @MinLength(1, { message: 'must be 1 to 255 characters' })
  @MaxLength(255, { message: 'must be 1 to 255 characters' })
  actor?: string;

  @ApiPropertyOptional({ description: 'entries about one object, `kind/name` (e.g. `project/web`), or every object of a kind (`project`)', maxLength: 286 })
  @Optional()
  @IsString({ message: 'must be a string' })
  @MaxLength(286, { message: 'must be at most 286 characters' })
  @Matches(AUDIT_OBJECT, { message: AUDIT_OBJECT_MESSAGE })
  object?: string;

  @ApiPropertyOptional({ description: 'entries at or after this time (ISO 8601)', example: '2027-01-31T00:00:00Z' })
  @Optional()
  @IsISO8601({ strict: true }, { message: TIME_MESSAGE })
  since?: string;

  @ApiPropertyOptional({ description: 'entries before this time (ISO 8601)', example: '2027-02-01T00:00:00Z' })
  @Optional()
  @IsISO8601({ strict: true }, { message: TIME_MESSAGE })
  until?: string;

  crossFieldProblems(): string[] {
    if (this.since === undefined || this.until === undefined) return [];
    return Date.parse(this.until) > Date.parse(this.since) ? [] : [`until: ${this.until} is not after since (${this.since}); give a later until`];
  }
}

export class AuditActorDto {
  @ApiProperty({ enum: ACTOR_KINDS }) kind!: string;
  @ApiProperty({ description: "the token's id, the OIDC subject, or `anonymous`" }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, nullable: true }) email!: string | null;
}

export class AuditEntryDto {
  @ApiProperty() id!: string;
  @ApiProperty({ description: 'when the response was sent' }) at!: string;
  @ApiProperty({ type: AuditActorDto }) actor!: AuditActorDto;
  @ApiProperty({ type: String, nullable: true, description: 'the tenant the request acted in' }) tenant!: string | null;
  @ApiProperty({ description: 'method and route pattern, e.g. `DELETE /api/v1/projects/:name`', example: 'DELETE /api/v1/projects/:name' }) action!: string;
  @ApiProperty({ type: String, nullable: true, description: '`kind/name` or `kind`', example: 'project/web' }) object!: string | null;
  @ApiProperty({ description: 'the HTTP status answered', example: 200 }) outcome!: number;
  @ApiProperty() requestId!: string;
  @ApiProperty({ type: String, nullable: true, description: "the caller's address as the hub's TCP peer" }) sourceAddress!: string | null;
}

/** Newest first; follow `continue` for older entries. */
export class AuditPageDto extends CursorPageFields {
  @ApiProperty({ type: [AuditEntryDto] }) items!: AuditEntryDto[];
}
