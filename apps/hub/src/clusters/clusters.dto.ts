import { AgentViewDto } from '../agents/agents.dto';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { PageQuery } from '../common/paging';
import type { CrossFieldChecks } from '../common/validation.pipe';
import { DNS_LABEL, DNS_LABEL_MESSAGE, HEADER_TOKEN, IsHttpUrl, IsLabelMap, NestedObject, Optional, PEM_DATA, PEM_MESSAGE } from '../common/validators';
import { IsLabelSelectorQuery } from '../targeting/label-selector-query';

const MODES = ['push', 'agent'] as const;

export class EndpointDto {
  @ApiProperty({ example: 'https://10.0.0.1:6443' })
  @IsHttpUrl()
  server!: string;

  @ApiPropertyOptional({ description: 'CA certificate: PEM, or base64 of PEM as in a kubeconfig' })
  @Optional()
  @IsString({ message: 'must be a string' })
  @MaxLength(65536, { message: 'must be at most 64 KiB' })
  @Matches(PEM_DATA, { message: PEM_MESSAGE })
  caData?: string;

  @ApiPropertyOptional({ default: false })
  @Optional()
  @IsBoolean({ message: 'must be true or false' })
  insecureSkipTLSVerify?: boolean;
}

/** Exactly one of: token; clientCertificateData with clientKeyData; kubeconfig (with an optional context). */
export class ClusterCredentialsDto implements CrossFieldChecks {
  @ApiPropertyOptional({ description: 'bearer token (visible ASCII, no spaces or line breaks)', writeOnly: true, maxLength: 16384, pattern: '^[\\x21-\\x7e]+$' })
  @Optional()
  @IsString({ message: 'must be a string' })
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(16384, { message: 'must be at most 16 KiB' })
  @Matches(HEADER_TOKEN, { message: 'must be visible ASCII without spaces or line breaks (it is sent in an Authorization header)' })
  token?: string;

  @ApiPropertyOptional({ description: 'client certificate, PEM or base64 of PEM', writeOnly: true, maxLength: 65536 })
  @Optional()
  @IsString({ message: 'must be a string' })
  @MaxLength(65536, { message: 'must be at most 64 KiB' })
  @Matches(PEM_DATA, { message: PEM_MESSAGE })
  clientCertificateData?: string;

  @ApiPropertyOptional({ description: 'client key, PEM or base64 of PEM', writeOnly: true, maxLength: 65536 })
  @Optional()
  @IsString({ message: 'must be a string' })
  @MaxLength(65536, { message: 'must be at most 64 KiB' })
  @Matches(PEM_DATA, { message: PEM_MESSAGE })
  clientKeyData?: string;

  @ApiPropertyOptional({ description: 'a whole kubeconfig (YAML or JSON) with embedded credentials', writeOnly: true, format: 'kubeconfig' })
  @Optional()
  @IsString({ message: 'must be a string' })
  @MaxLength(262144, { message: 'must be at most 256 KiB' })
  kubeconfig?: string;

  @ApiPropertyOptional({ description: 'context of the kubeconfig to use (default its current-context)' })
  @Optional()
  @IsString({ message: 'must be a string' })
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(253, { message: 'must be at most 253 characters' })
  context?: string;

  crossFieldProblems(prefix = 'credentials'): string[] {
    const given = [this.token !== undefined, this.clientCertificateData !== undefined || this.clientKeyData !== undefined, this.kubeconfig !== undefined];
    const problems: string[] = [];
    if (given.filter(Boolean).length !== 1) {
      problems.push(`${prefix}: give exactly one of token, clientCertificateData with clientKeyData, or kubeconfig`);
    } else if (given[1] && (this.clientCertificateData === undefined || this.clientKeyData === undefined)) {
      problems.push(`${prefix}: clientCertificateData and clientKeyData go together`);
    }
    if (this.context !== undefined && this.kubeconfig === undefined) problems.push(`${prefix}.context: only with kubeconfig`);
    return problems;
  }
}

export class CreateClusterDto implements CrossFieldChecks {
  @ApiProperty({ example: 'prod-eu-1' })
  @IsString({ message: 'must be a string' })
  @Matches(DNS_LABEL, { message: DNS_LABEL_MESSAGE })
  @MaxLength(63, { message: 'must be at most 63 characters' })
  name!: string;

  @ApiPropertyOptional({ default: 'default', example: 'production' })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Matches(DNS_LABEL, { message: DNS_LABEL_MESSAGE })
  @MaxLength(63, { message: 'must be at most 63 characters' })
  group: string = 'default';

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, example: { region: 'eu' } })
  @Optional()
  @IsLabelMap()
  labels: Record<string, string> = {};

  @ApiProperty({ enum: MODES })
  @IsIn(MODES, { message: 'must be push or agent' })
  mode!: 'push' | 'agent';

  @ApiPropertyOptional({ type: EndpointDto, description: 'push clusters; may come from the kubeconfig instead' })
  @Optional()
  @NestedObject(() => EndpointDto)
  endpoint?: EndpointDto;

  @ApiPropertyOptional({ type: ClusterCredentialsDto, description: 'push clusters only; never returned' })
  @Optional()
  @NestedObject(() => ClusterCredentialsDto)
  credentials?: ClusterCredentialsDto;

  crossFieldProblems(): string[] {
    const problems: string[] = [];
    if (this.mode === 'push') {
      if (!this.credentials) problems.push('credentials: required for push clusters');
      if (!this.endpoint && !this.credentials?.kubeconfig) problems.push('endpoint: required for push clusters (or give a kubeconfig)');
    }
    if (this.mode === 'agent') {
      if (this.endpoint) problems.push('endpoint: not used by agent clusters (the agent dials the hub)');
      if (this.credentials) problems.push('credentials: not used by agent clusters (the agent dials the hub)');
    }
    if (this.credentials instanceof ClusterCredentialsDto) problems.push(...this.credentials.crossFieldProblems());
    return problems;
  }
}

/** Only what is given changes; labels are replaced as a whole. */
export class UpdateClusterDto implements CrossFieldChecks {
  @ApiPropertyOptional()
  @Optional()
  @IsString({ message: 'must be a string' })
  @Matches(DNS_LABEL, { message: DNS_LABEL_MESSAGE })
  @MaxLength(63, { message: 'must be at most 63 characters' })
  group?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @Optional()
  @IsLabelMap()
  labels?: Record<string, string>;

  @ApiPropertyOptional({ type: EndpointDto, description: 'a new `server` needs `credentials` in the same request: stored credentials go only to the server they were given for (409 otherwise)' })
  @Optional()
  @NestedObject(() => EndpointDto)
  endpoint?: EndpointDto;

  @ApiPropertyOptional({ type: ClusterCredentialsDto, description: 'replaces the stored credentials (rotation)' })
  @Optional()
  @NestedObject(() => ClusterCredentialsDto)
  credentials?: ClusterCredentialsDto;

  crossFieldProblems(): string[] {
    return this.credentials instanceof ClusterCredentialsDto ? this.credentials.crossFieldProblems() : [];
  }
}

export class ClusterQuery extends PageQuery {
  @ApiPropertyOptional()
  @Optional()
  @IsString({ message: 'must be a string' })
  @Matches(DNS_LABEL, { message: DNS_LABEL_MESSAGE })
  group?: string;

  @ApiPropertyOptional({ enum: MODES })
  @Optional()
  @IsIn(MODES, { message: 'must be push or agent' })
  mode?: 'push' | 'agent';

  @ApiPropertyOptional()
  @Optional()
  @IsLabelSelectorQuery()
  labelSelector?: string;
}

export class DeleteClusterQuery {
  @ApiPropertyOptional({ description: 'delete even while Projects still target the cluster', default: false })
  @Optional()
  @IsIn(['true', 'false'], { message: 'must be true or false' })
  force?: 'true' | 'false';
}

export class CredentialSummaryDto {
  @ApiProperty({ example: 'token' }) kind!: string;
  @ApiProperty({ example: 'hmac:0a1b2c3d4e5f6071', description: 'keyed hash of the secret (changes when the secret or the hub key does)' }) fingerprint!: string;
}

export class EndpointViewDto {
  @ApiProperty() server!: string;
  @ApiProperty() insecureSkipTLSVerify!: boolean;
  @ApiProperty({ description: 'whether a CA certificate is pinned' }) hasCaData!: boolean;
}

export class ClusterStatusDto {
  @ApiPropertyOptional({ nullable: true, type: Boolean, description: 'null until checked (agent clusters: until the agent connects)' })
  reachable!: boolean | null;
  @ApiPropertyOptional({ nullable: true, type: String, example: 'v1.36.0' }) version!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) lastChecked!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) error!: string | null;
  @ApiProperty({ type: [String], description: 'problems worth fixing that do not stop it working, such as the same API server registered under another name' })
  warnings!: string[];
}

export class ClusterDto {
  @ApiProperty() name!: string;
  @ApiProperty() group!: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) labels!: Record<string, string>;
  @ApiProperty({ enum: MODES }) mode!: 'push' | 'agent';
  @ApiPropertyOptional({ type: EndpointViewDto, nullable: true }) endpoint!: EndpointViewDto | null;
  @ApiPropertyOptional({ type: CredentialSummaryDto, nullable: true }) credentials!: CredentialSummaryDto | null;
  @ApiProperty({ type: ClusterStatusDto }) status!: ClusterStatusDto;
  @ApiProperty({ description: "number of Targets (Projects placed here); a tenant member's view counts its tenants' only" }) targets!: number;
  @ApiPropertyOptional({ type: AgentViewDto, nullable: true, description: 'agent clusters: the agent\'s connection (and, in the registration response only, its bootstrap token)' })
  agent!: AgentViewDto | null;
  @ApiProperty() createdAt!: string;
  @ApiProperty() updatedAt!: string;
}

export class ClusterPageDto {
  @ApiProperty({ type: [ClusterDto] }) items!: ClusterDto[];
  @ApiProperty() total!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}
