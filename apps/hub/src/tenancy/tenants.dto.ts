import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, IsArray, IsIn, IsString, Matches, MaxLength } from 'class-validator';
import type { CrossFieldChecks } from '../common/validation.pipe';
import { BOOTSTRAP_ROLES, type BootstrapRole } from '@flotilla/engine';
import { DNS_LABEL, DNS_LABEL_MESSAGE, NestedObject, Optional } from '../common/validators';
import { LabelSelectorDto, selectorProblems } from '../projects/projects.dto';

const PATTERN_DESCRIPTION = 'names, or prefixes ending in "*" ("team-a-*"; "*" alone allows any)';
// No NUL anywhere: PostgreSQL's jsonb and text cannot hold it.
/** A name, or a prefix and a final `*`: `*` elsewhere is refused, so matching stays a prefix test. */
// eslint-disable-next-line no-control-regex -- NUL is what it refuses
const NAME_PATTERN = /^[^*\u0000]*\*?$/;
const NAME_PATTERN_MESSAGE = 'each must be a name, or a prefix ending in "*" such as "team-a-*" ("*" only at the end, no NUL)';
/** `oci://`, then optionally a host and path, no `*`. */
// eslint-disable-next-line no-control-regex -- NUL is what it refuses
const REPOSITORY_PREFIX = /^oci:\/\/[^*\u0000]*$/;
// eslint-disable-next-line no-control-regex -- NUL is what it refuses
const NO_NUL = /^[^\u0000]*$/;

export class TenantDestinationsDto {
  @ApiPropertyOptional({ type: [String], maxItems: 100, description: 'cluster groups the tenant may target' })
  @Optional()
  @IsArray({ message: 'must be a list of group names' })
  @ArrayMaxSize(100, { message: 'must have at most 100 groups' })
  @Matches(DNS_LABEL, { each: true, message: `each ${DNS_LABEL_MESSAGE}` })
  groups?: string[];

  @ApiPropertyOptional({ type: LabelSelectorDto, description: 'clusters whose labels match may be targeted ({} matches every cluster)' })
  @Optional()
  @NestedObject(() => LabelSelectorDto)
  labelSelector?: LabelSelectorDto;
}

/** What a tenant's Projects may use; everything left out allows nothing. */
export class TenantSpecFields implements CrossFieldChecks {
  @ApiPropertyOptional({ maxLength: 1000 })
  @Optional()
  @IsString({ message: 'must be a string' })
  @MaxLength(1000, { message: 'must be at most 1000 characters' })
  @Matches(NO_NUL, { message: 'must not contain NUL characters' })
  description?: string;

  @ApiPropertyOptional({ type: TenantDestinationsDto, description: 'the clusters its Projects may reach; a cluster is one when its group is listed or the label selector matches' })
  @Optional()
  @NestedObject(() => TenantDestinationsDto)
  destinations?: TenantDestinationsDto;

  @ApiPropertyOptional({ type: [String], maxItems: 100, description: `namespaces its Projects and their instances may use: ${PATTERN_DESCRIPTION}` })
  @Optional()
  @IsArray({ message: 'must be a list of patterns' })
  @ArrayMaxSize(100, { message: 'must have at most 100 patterns' })
  @IsString({ each: true, message: 'must be a list of strings' })
  @MaxLength(64, { each: true, message: 'each pattern must be at most 64 characters' })
  @Matches(NAME_PATTERN, { each: true, message: NAME_PATTERN_MESSAGE })
  namespaces?: string[];

  @ApiPropertyOptional({ type: [String], maxItems: 100, description: `service accounts its Projects may apply as: ${PATTERN_DESCRIPTION}` })
  @Optional()
  @IsArray({ message: 'must be a list of patterns' })
  @ArrayMaxSize(100, { message: 'must have at most 100 patterns' })
  @IsString({ each: true, message: 'must be a list of strings' })
  @MaxLength(254, { each: true, message: 'each pattern must be at most 254 characters' })
  @Matches(NAME_PATTERN, { each: true, message: NAME_PATTERN_MESSAGE })
  serviceAccounts?: string[];

  @ApiPropertyOptional({ type: [String], maxItems: 100, description: 'oci:// prefixes its Projects\' sources must lie under ("oci://ghcr.io/acme/team-a" allows that repository and those below it)' })
  @Optional()
  @IsArray({ message: 'must be a list of prefixes' })
  @ArrayMaxSize(100, { message: 'must have at most 100 prefixes' })
  @IsString({ each: true, message: 'must be a list of strings' })
  @MaxLength(512, { each: true, message: 'each prefix must be at most 512 characters' })
  @Matches(REPOSITORY_PREFIX, { each: true, message: 'each must be a prefix starting with oci:// (such as oci://ghcr.io/acme/team-a), without "*"' })
  repositories?: string[];

  @ApiPropertyOptional({ enum: BOOTSTRAP_ROLES, isArray: true, description: 'bootstrap roles its Projects may ask for; empty or absent: no bootstrap. cluster-admin makes the tenant\'s service accounts admins of whole clusters' })
  @Optional()
  @IsArray({ message: 'must be a list of roles' })
  @ArrayUnique({ message: 'must not repeat a role' })
  @IsIn(BOOTSTRAP_ROLES, { each: true, message: 'each must be admin or cluster-admin' })
  bootstrapRoles?: BootstrapRole[];

  crossFieldProblems(): string[] {
    return selectorProblems('destinations.labelSelector', this.destinations?.labelSelector);
  }
}

export class CreateTenantDto extends TenantSpecFields {
  @ApiProperty({ example: 'team-a', description: 'DNS label; never changes' })
  @IsString({ message: 'must be a string' })
  @Matches(DNS_LABEL, { message: DNS_LABEL_MESSAGE })
  name!: string;
}

/** Replaces the fields given; fields left out keep their value. */
export class UpdateTenantDto extends TenantSpecFields {}

export class TenantDestinationsViewDto {
  @ApiPropertyOptional({ type: [String] }) groups?: string[];
  @ApiPropertyOptional({ type: LabelSelectorDto }) labelSelector?: LabelSelectorDto;
}

export class TenantDto {
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ type: TenantDestinationsViewDto }) destinations!: TenantDestinationsViewDto;
  @ApiProperty({ type: [String] }) namespaces!: string[];
  @ApiProperty({ type: [String] }) serviceAccounts!: string[];
  @ApiProperty({ type: [String] }) repositories!: string[];
  @ApiProperty({ enum: BOOTSTRAP_ROLES, isArray: true }) bootstrapRoles!: BootstrapRole[];
  @ApiProperty() createdAt!: string;
  @ApiProperty() updatedAt!: string;
}

export class TenantPageDto {
  @ApiProperty({ type: [TenantDto] }) items!: TenantDto[];
  @ApiProperty() total!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}
