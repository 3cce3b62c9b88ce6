import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Matches, MaxLength, MinLength } from 'class-validator';
import type { CrossFieldChecks } from '../../common/validation.pipe';
import { DNS_LABEL, DNS_LABEL_MESSAGE, Optional } from '../../common/validators';
import { OCI_TAG } from '../projects.dto';

// The fleet diff's request and answer: the artifact in the body, the
// Targets in the query (as `POST …/reconcile?cluster=` takes them). The request body is JSON, so an
// uploaded artifact travels base64-encoded and stays under the hub's 1 MB
// body limit; a larger project is pushed and diffed by tag or digest.

export const DIGEST = /^sha256:[a-f0-9]{64}$/;
/** base64 characters of a gzip'd tar: ~700 KiB of archive, inside the 1 MB body limit */
export const MAX_ARTIFACT_BASE64 = 960_000;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export class ProjectDiffRequestDto implements CrossFieldChecks {
  @ApiPropertyOptional({ description: "a tag of the Project's repository instead of its own tag", example: 'v2' })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Matches(OCI_TAG, { message: 'must be an OCI tag (letters, digits, "_", "." or "-", at most 128)' })
  tag?: string;

  @ApiPropertyOptional({ description: "a manifest digest in the Project's repository", example: `sha256:${'0'.repeat(64)}` })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Matches(DIGEST, { message: 'must be sha256: and 64 lowercase hex digits' })
  digest?: string;

  @ApiPropertyOptional({
    description: "the Project's files as a gzip'd tar (the layer `flotilla artifact push` and `timoni artifact push` make), base64",
    format: 'timoni-artifact',
    maxLength: MAX_ARTIFACT_BASE64,
  })
  @Optional()
  @IsString({ message: 'must be a string' })
  @MinLength(4, { message: 'must be a base64 gzip tar' })
  @MaxLength(MAX_ARTIFACT_BASE64, { message: `must be at most ${MAX_ARTIFACT_BASE64} base64 characters; push a larger project and diff its tag` })
  @Matches(BASE64, { message: 'must be base64' })
  artifact?: string;

  crossFieldProblems(): string[] {
    const problems: string[] = [];
    const sources = (['tag', 'digest', 'artifact'] as const).filter((k) => this[k] !== undefined);
    if (sources.length > 1) problems.push(`${sources.join(', ')}: give at most one of tag, digest or artifact`);
    return problems;
  }
}

/** Which Targets: all, the one on `cluster`, those in `group` (both: that cluster, if it is in the group). */
export class ProjectDiffQuery {
  @ApiPropertyOptional({ description: "only this cluster (one of the Project's Targets)" })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Matches(DNS_LABEL, { message: DNS_LABEL_MESSAGE })
  cluster?: string;

  @ApiPropertyOptional({ description: 'only the Targets on clusters of this group' })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Matches(DNS_LABEL, { message: DNS_LABEL_MESSAGE })
  group?: string;
}

export const DIFF_ACTIONS = ['created', 'changed', 'pruned'] as const;
export const CLUSTER_DIFF_STATES = ['diffed', 'skipped', 'failed'] as const;

export class DiffObjectDto {
  @ApiProperty({ example: 'Deployment/shop/web' }) subject!: string;
  @ApiProperty({ description: 'namespace/name of the instance', example: 'shop/web' }) instance!: string;
  @ApiProperty() component!: string;
  @ApiProperty({ enum: DIFF_ACTIONS }) action!: (typeof DIFF_ACTIONS)[number];
  @ApiProperty({ description: 'unified diff from the live object to the dry-run result, Secret values masked; empty for pruned objects' }) diff!: string;
}

export class DiffCountsDto {
  @ApiProperty() created!: number;
  @ApiProperty() changed!: number;
  @ApiProperty() pruned!: number;
  @ApiProperty() unchanged!: number;
}

export class DiffProblemDto {
  @ApiProperty() component!: string;
  @ApiProperty() message!: string;
}

export class ClusterDiffDto {
  @ApiProperty() cluster!: string;
  @ApiProperty() group!: string;
  @ApiProperty({ enum: ['push', 'agent'] }) mode!: string;
  @ApiProperty({ enum: CLUSTER_DIFF_STATES, description: 'diffed (see errors for components that could not be), skipped (why in message) or failed' })
  state!: (typeof CLUSTER_DIFF_STATES)[number];
  @ApiPropertyOptional({ nullable: true, type: String, description: 'why it was skipped or failed' }) message!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, description: '`tag@sha256:…`, a digest, or `upload`' }) revision!: string | null;
  @ApiProperty({ type: DiffCountsDto }) counts!: DiffCountsDto;
  @ApiProperty({ type: [DiffObjectDto] }) objects!: DiffObjectDto[];
  @ApiProperty({ type: [DiffProblemDto] }) errors!: DiffProblemDto[];
}

export class ProjectDiffDto {
  @ApiProperty() project!: string;
  @ApiProperty({ description: 'what was diffed: `tag T`, `digest D`, `upload` or the Project\'s own tag' }) source!: string;
  @ApiProperty({ type: [ClusterDiffDto], description: 'one per Target diffed, by cluster name' }) clusters!: ClusterDiffDto[];
}
