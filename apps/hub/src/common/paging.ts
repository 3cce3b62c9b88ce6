import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { Optional } from './validators';

/** PostgreSQL's OFFSET is a bigint; past this no list has rows, and 1e20 would not fit. */
export const MAX_OFFSET = 2_147_483_647;

/** `?limit=` on every list and history. */
export class LimitQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 500, default: 50 })
  @Optional()
  @Type(() => Number)
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  @Max(500, { message: 'must be at most 500' })
  limit: number = 50;
}

/** `?limit=&offset=` on every list. */
export class PageQuery extends LimitQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0 })
  @Optional()
  @Type(() => Number)
  @IsInt({ message: 'must be an integer' })
  @Min(0, { message: 'must be at least 0' })
  @Max(MAX_OFFSET, { message: `must be at most ${MAX_OFFSET}` })
  offset: number = 0;
}

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}
