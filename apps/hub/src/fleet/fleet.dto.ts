import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { PageQuery } from '../common/paging';
import { DNS_LABEL, DNS_LABEL_MESSAGE, Optional } from '../common/validators';
import { IsLabelSelectorQuery } from '../targeting/label-selector-query';
import { FLEET_STATES, type FleetState } from './fleet-state';

/** `GET /api/v1/fleet/matrix`: which clusters (rows) and how many Projects (columns). */
export class MatrixQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'part of the cluster name', pattern: '^[a-z0-9-]*$', maxLength: 63 })
  @Optional()
  @IsString({ message: 'must be a string' })
  @MaxLength(63, { message: 'must be at most 63 characters' })
  @Matches(/^[a-z0-9-]*$/, { message: 'must be part of a cluster name: lowercase letters, digits and "-"' })
  name?: string;

  @ApiPropertyOptional()
  @Optional()
  @IsString({ message: 'must be a string' })
  @Matches(DNS_LABEL, { message: DNS_LABEL_MESSAGE })
  group?: string;

  @ApiPropertyOptional()
  @Optional()
  @IsLabelSelectorQuery()
  labelSelector?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'the first Projects by name become the columns' })
  @Optional()
  @Type(() => Number)
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  @Max(100, { message: 'must be at most 100' })
  projects: number = 20;
}

/** Targets by state; one field per FLEET_STATES entry (a spec keeps the two in step). */
export class StateCountsDto implements Record<FleetState, number> {
  @ApiProperty({ type: 'integer' }) Failed!: number;
  @ApiProperty({ type: 'integer' }) Stalled!: number;
  @ApiProperty({ type: 'integer', description: 'reported by an agent that is disconnected now' }) Stale!: number;
  @ApiProperty({ type: 'integer', description: 'Ready (applied) but without a Healthy=True condition' }) Unhealthy!: number;
  @ApiProperty({ type: 'integer', description: 'Pending or Reconciling' }) Progressing!: number;
  @ApiProperty({ type: 'integer' }) Deleting!: number;
  @ApiProperty({ type: 'integer' }) Suspended!: number;
  @ApiProperty({ type: 'integer' }) Ready!: number;
}

export class GroupSummaryDto {
  @ApiProperty() group!: string;
  @ApiProperty({ type: 'integer' }) clusters!: number;
  @ApiProperty({ type: 'integer', description: 'clusters whose last check failed' }) unreachable!: number;
  @ApiProperty({ type: StateCountsDto, description: 'Targets on the group\'s clusters' }) targets!: StateCountsDto;
}

export class FleetSummaryDto {
  @ApiProperty({ type: 'integer' }) clusters!: number;
  @ApiProperty({ type: 'integer' }) projects!: number;
  @ApiProperty({ type: StateCountsDto, description: 'every Target' }) targets!: StateCountsDto;
  @ApiProperty({ type: [GroupSummaryDto] }) groups!: GroupSummaryDto[];
  @ApiProperty({ enum: FLEET_STATES, isArray: true, description: 'the states, most urgent first' }) states!: FleetState[];
}

export class MatrixCellDto {
  @ApiProperty({ enum: FLEET_STATES }) state!: FleetState;
  @ApiProperty({ type: String, nullable: true, description: 'tag@digest last applied' }) revision!: string | null;
}

export class MatrixRowDto {
  @ApiProperty() cluster!: string;
  @ApiProperty() group!: string;
  @ApiProperty({ enum: ['push', 'agent'] }) mode!: string;
  @ApiProperty({ type: Boolean, nullable: true, description: 'null until the first check' }) reachable!: boolean | null;
  @ApiProperty({ type: String, nullable: true }) lastCheckedAt!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) labels!: Record<string, string>;
  @ApiProperty({ type: 'object', additionalProperties: { $ref: getSchemaPath(MatrixCellDto) }, description: 'by Project name; absent where the Project does not target the cluster' })
  cells!: Record<string, MatrixCellDto>;
}

export class MatrixPageDto {
  @ApiProperty({ type: [String], description: 'the columns: Project names' }) projects!: string[];
  @ApiProperty({ type: [MatrixRowDto] }) items!: MatrixRowDto[];
  @ApiProperty({ type: 'integer', description: 'clusters the filter matches' }) total!: number;
  @ApiProperty({ type: 'integer' }) limit!: number;
  @ApiProperty({ type: 'integer' }) offset!: number;
}
