import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';
import { LimitQuery } from './paging';
import { Optional } from './validators';

/**
 * Where the previous page of a history (runs, events) ended: the exact time
 * (microseconds since the epoch, as the database keeps it) and id of its last
 * row. Newest-first lists resume strictly after it, so rows written meanwhile
 * neither shift nor repeat pages, and no page costs more than its own rows
 * (no OFFSET, no count). Any well-formed cursor is a valid place to resume.
 */
export interface Cursor {
  micros: string;
  id: string;
}

/** `<microseconds since 1970>_<uuid>`: the OpenAPI pattern and the check are this one expression. */
export const CURSOR = /^(0|[1-9][0-9]{0,15})_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export function encodeCursor(c: Cursor): string {
  return `${c.micros}_${c.id}`;
}

export function decodeCursor(token: string): Cursor | undefined {
  const m = CURSOR.exec(token);
  return m ? { micros: m[1], id: m[2] } : undefined;
}

/** `?limit=&continue=` on histories. */
export class CursorQuery extends LimitQuery {
  @ApiPropertyOptional({ description: 'the `continue` of the previous page; absent for the first' })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Matches(CURSOR, { message: 'must be the continue token of a previous page' })
  continue?: string;
}

export interface CursorPage<T> {
  items: T[];
  limit: number;
  /** pass as ?continue= for the next page; null on the last */
  continue: string | null;
}

/** The page a history query returned, with the token for the next. */
export function cursorPage<T>(items: T[], limit: number, next: Cursor | null): CursorPage<T> {
  return { items, limit, continue: next ? encodeCursor(next) : null };
}

/** Response fields shared by every cursor page (items are declared per page type). */
export class CursorPageFields {
  @ApiProperty() limit!: number;
  @ApiProperty({ type: String, nullable: true, description: 'pass as ?continue= for the next page; null on the last' }) continue!: string | null;
}
