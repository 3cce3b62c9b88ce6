import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsObject, IsString, Matches, MaxLength, MinLength, ValidateNested } from 'class-validator';
import { parseDuration } from '../common/duration';
import { CursorQuery } from '../common/cursor';
import { PageQuery } from '../common/paging';
import type { CrossFieldChecks } from '../common/validation.pipe';
import { DNS_LABEL, DNS_LABEL_MESSAGE, IsAnnotationMap, IsHttpUrl, IsLabelKey, IsLabelMap, NestedObject, Optional } from '../common/validators';
import { TARGET_PHASES, TARGET_REMOVALS, type TargetPhase, type TargetRemoval } from '../database/entities';
import { IsLabelSelectorQuery } from '../targeting/label-selector-query';
import { SinkHeaderDto } from '../cdevents/sink-header.dto';
import { IsWebhookUrl } from '../notifications/webhook-url.validator';
import { BOOTSTRAP_ROLES, type BootstrapRole } from '@flotilla/engine';
import { RolloutDto, rolloutProblems } from '../rollout/rollout-spec.dto';

/** The chat webhook field, as the API describes it. */
export const NOTIFICATION_WEBHOOK_DESCRIPTION =
  'a chat webhook (Slack-compatible incoming webhook) told of every rollout wave transition; https:// (http:// only to loopback). A secret: stored sealed, shown to nobody beyond scheme and host';

export { RolloutDto };

export const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/**
 * `oci://host[:port]/path`, read as the registry client reads references: the
 * host is what names a registry (a dot, a port or `localhost`), and each path
 * component is lowercase with `.`, `_`, `__` or dashes between.
 */
export const OCI_REPOSITORY = /^oci:\/\/(?:[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)+(?::\d{1,5})?|[a-zA-Z0-9-]+:\d{1,5}|localhost)(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)+$/;
export const OCI_TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;
// eslint-disable-next-line no-control-regex -- NUL and control characters are what it refuses
export const PROJECT_FILE = /^(?!\/)(?![^\u0000-\u001f]*(?:^|\/)\.\.(?:\/|$))[^\u0000-\u001f]+\.cue$/;
export const PROJECT_FILE_MESSAGE = 'must be a relative path to a .cue file, without ".."';
export const TARGET_REMOVAL_DESCRIPTION =
  'when a cluster leaves the targets: delete the instances applied there (the Target stays in phase Deleting until they are gone), or orphan them (left running; the Target goes at once)';
export const OVERWRITE_OWNERSHIP_DESCRIPTION =
  'take over instances that another Project, another registration of the cluster or a plain timoni apply holds (Timoni --overwrite-ownership); without it such an instance stalls the run with OwnershipConflict';
const MIN_INTERVAL_S = 10;
const MAX_INTERVAL_S = 7 * 24 * 3600;

export class SourceDto {
  @ApiProperty({ example: 'oci://ghcr.io/acme/platform' })
  @IsString({ message: 'must be a string' })
  @Matches(OCI_REPOSITORY, { message: 'must be oci://host[:port]/path with a lowercase repository path' })
  repository!: string;

  @ApiPropertyOptional({ default: 'latest' })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Matches(OCI_TAG, { message: 'must be an OCI tag (letters, digits, "_", "." or "-", at most 128)' })
  tag: string = 'latest';

  @ApiPropertyOptional({ default: 'project.cue', description: 'path of the project file inside the artifact' })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Matches(PROJECT_FILE, { message: PROJECT_FILE_MESSAGE })
  path: string = 'project.cue';
}

export class LabelSelectorRequirementDto {
  @ApiProperty({ maxLength: 317 })
  @IsString({ message: 'must be a string' })
  @MaxLength(317, { message: 'must be at most 317 characters' })
  @IsLabelKey()
  key!: string;

  @ApiProperty({ enum: OPERATORS })
  @IsIn(OPERATORS, { message: `must be one of ${OPERATORS.join(', ')}` })
  operator!: (typeof OPERATORS)[number];

  @ApiPropertyOptional({ type: [String], maxItems: 100 })
  @Optional()
  @IsArray({ message: 'must be a list of strings' })
  @ArrayMaxSize(100, { message: 'must have at most 100 values' })
  @IsString({ each: true, message: 'must be a list of strings' })
  @MaxLength(63, { each: true, message: 'each value must be at most 63 characters (a label value)' })
  values?: string[];
}

export class LabelSelectorDto {
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @Optional()
  @IsLabelMap()
  matchLabels?: Record<string, string>;

  @ApiPropertyOptional({ type: [LabelSelectorRequirementDto], maxItems: 20 })
  @Optional()
  @IsArray({ message: 'must be a list' })
  @ArrayMaxSize(20, { message: 'must have at most 20 expressions' })
  @IsObject({ each: true, message: 'must be a list of objects' })
  @ValidateNested({ each: true })
  @Type(() => LabelSelectorRequirementDto)
  matchExpressions?: LabelSelectorRequirementDto[];
}

/** A cluster is targeted when its name or group is listed, or the label selector matches it. */
export class TargetsDto {
  @ApiPropertyOptional({ type: [String], maxItems: 1000 })
  @Optional()
  @IsArray({ message: 'must be a list of cluster names' })
  @ArrayMaxSize(1000, { message: 'must have at most 1000 names (target more clusters by group or label)' })
  @Matches(DNS_LABEL, { each: true, message: `each ${DNS_LABEL_MESSAGE}` })
  names?: string[];

  @ApiPropertyOptional({ type: [String], maxItems: 100 })
  @Optional()
  @IsArray({ message: 'must be a list of group names' })
  @ArrayMaxSize(100, { message: 'must have at most 100 groups' })
  @Matches(DNS_LABEL, { each: true, message: `each ${DNS_LABEL_MESSAGE}` })
  groups?: string[];

  @ApiPropertyOptional({ type: LabelSelectorDto })
  @Optional()
  @NestedObject(() => LabelSelectorDto)
  labelSelector?: LabelSelectorDto;
}

/** Exactly one of username with password, or a dockerConfigJson. */
export class RegistryCredentialsDto implements CrossFieldChecks {
  @ApiPropertyOptional({ writeOnly: true, maxLength: 1024 })
  @Optional()
  @IsString({ message: 'must be a string' })
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(1024, { message: 'must be at most 1024 characters' })
  username?: string;

  @ApiPropertyOptional({ writeOnly: true, maxLength: 16384 })
  @Optional()
  @IsString({ message: 'must be a string' })
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(16384, { message: 'must be at most 16 KiB' })
  password?: string;

  @ApiPropertyOptional({ writeOnly: true, description: 'content of a ~/.docker/config.json: JSON with an "auths" object', format: 'docker-config-json' })
  @Optional()
  @IsString({ message: 'must be a string' })
  @MaxLength(65536, { message: 'must be at most 64 KiB' })
  dockerConfigJson?: string;

  crossFieldProblems(prefix = 'registryCredentials'): string[] {
    const basic = this.username !== undefined || this.password !== undefined;
    const docker = this.dockerConfigJson !== undefined;
    if (basic === docker) return [`${prefix}: give either username with password, or dockerConfigJson`];
    if (basic && (this.username === undefined || this.password === undefined)) return [`${prefix}: username and password go together`];
    if (docker) {
      try {
        const parsed = JSON.parse(this.dockerConfigJson!) as unknown;
        if (!parsed || typeof parsed !== 'object' || typeof (parsed as { auths?: unknown }).auths !== 'object') throw new Error('no auths');
      } catch {
        return [`${prefix}.dockerConfigJson: must be JSON with an "auths" object`];
      }
    }
    return [];
  }
}

/** Fields shared by create and update; on update every one is optional. */
abstract class ProjectSpecFields {
  @ApiPropertyOptional({ type: TargetsDto })
  @Optional()
  @NestedObject(() => TargetsDto)
  targets?: TargetsDto;

  @ApiPropertyOptional({ type: RolloutDto })
  @Optional()
  @NestedObject(() => RolloutDto)
  rollout?: RolloutDto;

  @ApiPropertyOptional({ default: '10m', description: 'reconcile interval: hours, minutes and seconds, e.g. 10m or 1h30m, from 10s to 168h', format: 'interval', maxLength: 64 })
  @Optional()
  @IsString({ message: 'must be a duration such as 10m or 1h30m' })
  @MaxLength(64, { message: 'must be at most 64 characters' })
  interval?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, description: 'runtime annotations' })
  @Optional()
  @IsAnnotationMap()
  annotations?: Record<string, string>;

  @ApiPropertyOptional({ type: RegistryCredentialsDto, description: 'never returned' })
  @Optional()
  @NestedObject(() => RegistryCredentialsDto)
  registryCredentials?: RegistryCredentialsDto;

  @ApiPropertyOptional({ description: 'URL that receives CDEvents about this Project' })
  @Optional()
  @IsHttpUrl()
  cdeventsSink?: string;

  @ApiPropertyOptional({ type: SinkHeaderDto, description: 'a secret header sent with every CDEvent to the sink; never returned' })
  @Optional()
  @NestedObject(() => SinkHeaderDto)
  cdeventsSinkHeader?: SinkHeaderDto;

  @ApiPropertyOptional({ maxLength: 2048, description: NOTIFICATION_WEBHOOK_DESCRIPTION })
  @Optional()
  @IsWebhookUrl()
  notificationWebhook?: string;
  @ApiPropertyOptional({ enum: TARGET_REMOVALS, default: 'delete', description: TARGET_REMOVAL_DESCRIPTION })
  @Optional()
  @IsIn(TARGET_REMOVALS, { message: 'must be delete or orphan' })
  targetRemoval?: TargetRemoval;

  @ApiPropertyOptional({ default: false, description: OVERWRITE_OWNERSHIP_DESCRIPTION })
  @Optional()
  @IsBoolean({ message: 'must be true or false' })
  overwriteOwnership?: boolean;

  crossFieldProblems(): string[] {
    return specProblems(this);
  }
}

/** The checks that span fields, for a new Project and for a patch alike. */
export function specProblems(spec: { interval?: string | null; targets?: { labelSelector?: { matchExpressions?: unknown[] | null } | null } | null; registryCredentials?: unknown; rollout?: unknown }): string[] {
  const problems: string[] = [];
  if (spec.interval !== undefined && typeof spec.interval === 'string') {
    const s = parseDuration(spec.interval);
    if (s === undefined) problems.push(`interval: "${spec.interval}" is not a duration such as 10m or 1h30m`);
    else if (s < MIN_INTERVAL_S || s > MAX_INTERVAL_S) problems.push('interval: must be between 10s and 168h');
  }
  problems.push(...selectorProblems('targets.labelSelector', spec.targets?.labelSelector));
  if (spec.registryCredentials instanceof RegistryCredentialsDto) problems.push(...spec.registryCredentials.crossFieldProblems());
  problems.push(...rolloutProblems(spec.rollout));
  return problems;
}

/** In and NotIn need values, Exists and DoesNotExist take none: the rule each selector's expressions follow. */
export function selectorProblems(path: string, selector: { matchExpressions?: unknown[] | null } | null | undefined): string[] {
  const problems: string[] = [];
  for (const [i, e] of (selector?.matchExpressions ?? []).entries()) {
    if (!(e instanceof LabelSelectorRequirementDto)) continue;
    const at = `${path}.matchExpressions[${i}]`;
    const needsValues = e.operator === 'In' || e.operator === 'NotIn';
    if (needsValues && !(e.values?.length)) problems.push(`${at}.values: ${e.operator} needs at least one value`);
    if (!needsValues && e.values?.length) problems.push(`${at}.values: ${e.operator} takes no values`);
  }
  return problems;
}

export class BootstrapDto {
  @ApiProperty({ enum: BOOTSTRAP_ROLES, description: 'admin: admin in the Project namespace only; cluster-admin: admin of the whole cluster' })
  @IsIn(BOOTSTRAP_ROLES, { message: 'must be admin or cluster-admin' })
  serviceAccountRole!: BootstrapRole;
}

export const BOOTSTRAP_DESCRIPTION =
  "on every push cluster, before each run, the hub creates with the cluster's own credentials the Project namespace, its service account, an image pull secret from registryCredentials and a binding of serviceAccountRole; deleting the Project, or removing the cluster from its targets, removes them (objects that existed before are used, never changed or removed)";

export class CreateProjectDto extends ProjectSpecFields implements CrossFieldChecks {
  @ApiProperty({ example: 'platform' })
  @IsString({ message: 'must be a string' })
  @Matches(DNS_LABEL, { message: DNS_LABEL_MESSAGE })
  @MaxLength(63, { message: 'must be at most 63 characters' })
  name!: string;

  @ApiPropertyOptional({
    example: 'team-a',
    description: "the tenant it belongs to, never changed after creation; default: the caller's only tenant where it is operator, or `default` for a global caller",
  })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Matches(DNS_LABEL, { message: DNS_LABEL_MESSAGE })
  tenant?: string;

  @ApiProperty({ example: 'flotilla-system', description: 'namespace of the service account the Project applies as' })
  @IsString({ message: 'must be a string' })
  @Matches(DNS_LABEL, { message: DNS_LABEL_MESSAGE })
  @MaxLength(63, { message: 'must be at most 63 characters' })
  namespace!: string;

  @ApiProperty({ type: SourceDto })
  @NestedObject(() => SourceDto)
  source!: SourceDto;

  @ApiPropertyOptional({ description: 'service account to impersonate (default: the Project name)' })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Matches(DNS_SUBDOMAIN, { message: 'must be a DNS subdomain' })
  @MaxLength(253, { message: 'must be at most 253 characters' })
  serviceAccountName?: string;

  @ApiPropertyOptional({ default: false })
  @Optional()
  @IsBoolean({ message: 'must be true or false' })
  suspend: boolean = false;

  @ApiPropertyOptional({ type: BootstrapDto, description: BOOTSTRAP_DESCRIPTION })
  @Optional()
  @NestedObject(() => BootstrapDto)
  bootstrap?: BootstrapDto;
}

export class ProjectQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'only Projects of this tenant' })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Matches(DNS_LABEL, { message: DNS_LABEL_MESSAGE })
  tenant?: string;

  @ApiPropertyOptional({ description: 'only suspended (true) or active (false) Projects' })
  @Optional()
  @IsIn(['true', 'false'], { message: 'must be true or false' })
  suspended?: 'true' | 'false';
}

export class DeleteProjectQuery {
  @ApiPropertyOptional({ enum: ['delete', 'orphan'], default: 'delete', description: 'remove the applied instances from the clusters, or leave them' })
  @Optional()
  @IsIn(['delete', 'orphan'], { message: 'must be delete or orphan' })
  instances: 'delete' | 'orphan' = 'delete';
}

export class ReconcileQuery {
  @ApiPropertyOptional({ description: 'only this cluster (default: every Target)' })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Matches(DNS_LABEL, { message: DNS_LABEL_MESSAGE })
  cluster?: string;
}

export class TargetQuery extends PageQuery {
  @ApiPropertyOptional({ enum: TARGET_PHASES })
  @Optional()
  @IsIn(TARGET_PHASES, { message: `must be one of ${TARGET_PHASES.join(', ')}` })
  phase?: TargetPhase;

  @ApiPropertyOptional({ description: "the cluster's group" })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Matches(DNS_LABEL, { message: DNS_LABEL_MESSAGE })
  group?: string;

  @ApiPropertyOptional()
  @Optional()
  @IsLabelSelectorQuery()
  labelSelector?: string;
}

export class EventQuery extends CursorQuery {
  @ApiPropertyOptional()
  @Optional()
  @IsString({ message: 'must be a string' })
  @Matches(DNS_LABEL, { message: DNS_LABEL_MESSAGE })
  cluster?: string;
}
