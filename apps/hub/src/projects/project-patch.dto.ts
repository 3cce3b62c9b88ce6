import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsObject, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import type { CrossFieldChecks } from '../common/validation.pipe';
import { SinkHeaderDto } from '../cdevents/sink-header.dto';
import { IsWebhookUrl } from '../notifications/webhook-url.validator';
import { TARGET_REMOVALS, type TargetRemoval } from '../database/entities';
import { DNS_LABEL, DNS_LABEL_MESSAGE, IsAnnotationMapPatch, IsHttpUrl, IsLabelMapPatch, NestedObject, Optional, OptionalOrNull } from '../common/validators';
import {
  BOOTSTRAP_DESCRIPTION,
  BootstrapDto,
  DNS_SUBDOMAIN,
  LabelSelectorRequirementDto,
  OCI_REPOSITORY,
  OVERWRITE_OWNERSHIP_DESCRIPTION,
  TARGET_REMOVAL_DESCRIPTION,
  OCI_TAG,
  PROJECT_FILE,
  PROJECT_FILE_MESSAGE,
  RegistryCredentialsDto,
  RolloutDto,
  specProblems,
  NOTIFICATION_WEBHOOK_DESCRIPTION,
} from './projects.dto';

// PATCH of a Project is a JSON merge patch (RFC 7396): members left out keep
// their value, objects merge member by member, null removes a member (which
// puts back its default), lists replace. No field has a default here: a
// default would overwrite what the Project has.

export class SourcePatchDto {
  @ApiPropertyOptional({ example: 'oci://ghcr.io/acme/platform', description: 'another registry host needs `registryCredentials` (or null) in the same patch when the Project has some stored' })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Matches(OCI_REPOSITORY, { message: 'must be oci://host[:port]/path with a lowercase repository path' })
  repository?: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'null puts back the default, latest' })
  @OptionalOrNull()
  @IsString({ message: 'must be a string' })
  @Matches(OCI_TAG, { message: 'must be an OCI tag (letters, digits, "_", "." or "-", at most 128)' })
  tag?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'null puts back the default, project.cue' })
  @OptionalOrNull()
  @IsString({ message: 'must be a string' })
  @Matches(PROJECT_FILE, { message: PROJECT_FILE_MESSAGE })
  path?: string | null;
}

export class LabelSelectorPatchDto {
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, nullable: true, description: 'null removes a label, or all of them' })
  @OptionalOrNull()
  @IsLabelMapPatch()
  matchLabels?: Record<string, string | null> | null;

  @ApiPropertyOptional({ type: [LabelSelectorRequirementDto], maxItems: 20, nullable: true })
  @OptionalOrNull()
  @IsArray({ message: 'must be a list' })
  @ArrayMaxSize(20, { message: 'must have at most 20 expressions' })
  @IsObject({ each: true, message: 'must be a list of objects' })
  @ValidateNested({ each: true })
  @Type(() => LabelSelectorRequirementDto)
  matchExpressions?: LabelSelectorRequirementDto[] | null;
}

export class TargetsPatchDto {
  @ApiPropertyOptional({ type: [String], maxItems: 1000, nullable: true })
  @OptionalOrNull()
  @IsArray({ message: 'must be a list of cluster names' })
  @ArrayMaxSize(1000, { message: 'must have at most 1000 names (target more clusters by group or label)' })
  @Matches(DNS_LABEL, { each: true, message: `each ${DNS_LABEL_MESSAGE}` })
  names?: string[] | null;

  @ApiPropertyOptional({ type: [String], maxItems: 100, nullable: true })
  @OptionalOrNull()
  @IsArray({ message: 'must be a list of group names' })
  @ArrayMaxSize(100, { message: 'must have at most 100 groups' })
  @Matches(DNS_LABEL, { each: true, message: `each ${DNS_LABEL_MESSAGE}` })
  groups?: string[] | null;

  @ApiPropertyOptional({ type: LabelSelectorPatchDto, nullable: true })
  @OptionalOrNull()
  @NestedObject(() => LabelSelectorPatchDto)
  labelSelector?: LabelSelectorPatchDto | null;
}

/** The body of PATCH /projects/{name}. */
export class UpdateProjectDto implements CrossFieldChecks {
  @ApiPropertyOptional()
  @Optional()
  @IsString({ message: 'must be a string' })
  @Matches(DNS_LABEL, { message: DNS_LABEL_MESSAGE })
  @MaxLength(63, { message: 'must be at most 63 characters' })
  namespace?: string;

  @ApiPropertyOptional({ type: SourcePatchDto })
  @Optional()
  @NestedObject(() => SourcePatchDto)
  source?: SourcePatchDto;

  @ApiPropertyOptional({ type: String, maxLength: 253, nullable: true, description: 'null puts back the default, the Project name' })
  @OptionalOrNull()
  @IsString({ message: 'must be a string' })
  @Matches(DNS_SUBDOMAIN, { message: 'must be a DNS subdomain' })
  @MaxLength(253, { message: 'must be at most 253 characters' })
  serviceAccountName?: string | null;

  @ApiPropertyOptional({ type: TargetsPatchDto, nullable: true, description: 'null targets no cluster' })
  @OptionalOrNull()
  @NestedObject(() => TargetsPatchDto)
  targets?: TargetsPatchDto | null;

  @ApiPropertyOptional({ type: RolloutDto, nullable: true, description: 'null rolls out to every group at once' })
  @OptionalOrNull()
  @NestedObject(() => RolloutDto)
  rollout?: RolloutDto | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'reconcile interval, e.g. 10m or 1h30m, from 10s to 168h; null puts back 10m', format: 'interval', maxLength: 64 })
  @OptionalOrNull()
  @IsString({ message: 'must be a duration such as 10m or 1h30m' })
  @MaxLength(64, { message: 'must be at most 64 characters' })
  interval?: string | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, nullable: true, description: 'runtime annotations, merged key by key; null removes one, or all' })
  @OptionalOrNull()
  @IsAnnotationMapPatch()
  annotations?: Record<string, string | null> | null;

  @ApiProperty({ type: RegistryCredentialsDto, required: false, nullable: true, description: 'never returned; replaced whole (it cannot be merged with what is not shown); null removes them' })
  @OptionalOrNull()
  @NestedObject(() => RegistryCredentialsDto)
  registryCredentials?: RegistryCredentialsDto | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'URL that receives CDEvents about this Project; null stops them. A new URL needs `cdeventsSinkHeader` (or null) in the same patch when a header is stored' })
  @OptionalOrNull()
  @IsHttpUrl()
  cdeventsSink?: string | null;

  @ApiProperty({ type: SinkHeaderDto, required: false, nullable: true, description: 'never returned; replaced whole; null removes it' })
  @OptionalOrNull()
  @NestedObject(() => SinkHeaderDto)
  cdeventsSinkHeader?: SinkHeaderDto | null;

  @ApiPropertyOptional({ type: String, maxLength: 2048, nullable: true, description: `${NOTIFICATION_WEBHOOK_DESCRIPTION}; replaced whole; null removes it` })
  @OptionalOrNull()
  @IsWebhookUrl()
  notificationWebhook?: string | null;
  @ApiPropertyOptional({ enum: TARGET_REMOVALS, nullable: true, description: `${TARGET_REMOVAL_DESCRIPTION}; null puts back delete` })
  @OptionalOrNull()
  @IsIn(TARGET_REMOVALS, { message: 'must be delete or orphan' })
  targetRemoval?: TargetRemoval | null;

  @ApiPropertyOptional({ type: Boolean, nullable: true, description: `${OVERWRITE_OWNERSHIP_DESCRIPTION}; null puts back false` })
  @OptionalOrNull()
  @IsBoolean({ message: 'must be true or false' })
  overwriteOwnership?: boolean | null;

  @ApiPropertyOptional({ type: BootstrapDto, nullable: true, description: `${BOOTSTRAP_DESCRIPTION}; null stops bootstrapping (what it made stays until the Project is deleted)` })
  @OptionalOrNull()
  @NestedObject(() => BootstrapDto)
  bootstrap?: BootstrapDto | null;

  crossFieldProblems(): string[] {
    return specProblems(this);
  }
}
