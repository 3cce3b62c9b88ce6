import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { Optional } from './validators';

/**
 * Where the previous page of a history (runs, events) ended: the exact
 * database time and id of its last row. Newest-first lists resume strictly
 * after it, so rows written meanwhile neither shift nor repeat pages, and no
 * page costs more than its own rows (no OFFSET, no count).
 */
export interface Cursor {
  /** as PostgreSQL printed it, to the microsecond */
  time: string;
  id: string;
}

const TOKEN = /^[A-Za-z0-9_-]{1,400}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PG_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/;

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.time, c.id])).toString('base64url');
}

/** The cursor in `token`, or undefined when this hub did not issue it. */
export function decodeCursor(token: string): Cursor | undefined {
  try {
    const value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (!Array.isArray(value) || value.length !== 2) return undefined;
    const [time, id] = value as unknown[];
    if (typeof time !== 'string' || typeof id !== 'string' || !PG_TIME.test(time) || !UUID.test(id)) return undefined;
    return { time, id };
  } catch {
    return undefined;
  }
}

/** `?limit=&continue=` on histories. */
export class CursorQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 500, default: 50 })
  @Optional()
  @Type(() => Number)
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  @Max(500, { message: 'must be at most 500' })
  limit: number = 50;

  @ApiPropertyOptional({ description: 'the `continue` of the previous page; absent for the first' })
  @Optional()
  @IsString({ message: 'must be a string' })
  @MaxLength(400, { message: 'must be at most 400 characters' })
  @Matches(TOKEN, { message: 'must be the continue token of a previous page' })
  continue?: string;
}

export interface CursorPage<T> {
  items: T[];
  limit: number;
  /** pass as ?continue= for the next page; null on the last */
  continue: string | null;
}

/** Response fields shared by every cursor page (items are declared per page type). */
export class CursorPageFields {
  @ApiProperty() limit!: number;
  @ApiProperty({ type: String, nullable: true, description: 'pass as ?continue= for the next page; null on the last' }) continue!: string | null;
}
