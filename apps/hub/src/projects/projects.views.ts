import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CredentialSummaryDto } from '../clusters/clusters.dto';

// Response shapes of the projects API: never entities, never secrets.

export class SourceViewDto {
  @ApiProperty() repository!: string;
  @ApiProperty() tag!: string;
  @ApiProperty() path!: string;
}

export class ProjectStatusDto {
  @ApiProperty({ description: 'number of Targets' }) targets!: number;
  @ApiProperty({ description: 'Targets in phase Ready' }) ready!: number;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'number' }, example: { Ready: 3, Failed: 1 } }) phases!: Record<string, number>;
  @ApiProperty({ description: 'true while a deletion with instances=delete is in progress' }) deleting!: boolean;
}

export class ProjectDto {
  @ApiProperty() name!: string;
  @ApiProperty() namespace!: string;
  @ApiProperty({ type: SourceViewDto }) source!: SourceViewDto;
  @ApiProperty() serviceAccountName!: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) targets!: object;
  @ApiProperty({ type: 'object', properties: { groups: { type: 'array', items: { type: 'string' } } } }) rollout!: { groups: string[] };
  @ApiProperty({ example: '10m' }) interval!: string;
  @ApiProperty() suspend!: boolean;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) annotations!: Record<string, string>;
  @ApiPropertyOptional({ type: CredentialSummaryDto, nullable: true }) registryCredentials!: CredentialSummaryDto | null;
  @ApiPropertyOptional({ nullable: true, type: String }) cdeventsSink!: string | null;
  @ApiProperty({ description: 'bumped on every spec change' }) generation!: number;
  @ApiProperty({ type: ProjectStatusDto }) status!: ProjectStatusDto;
  @ApiProperty() createdAt!: string;
  @ApiProperty() updatedAt!: string;
}

export class ProjectPageDto {
  @ApiProperty({ type: [ProjectDto] }) items!: ProjectDto[];
  @ApiProperty() total!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export class ConditionDto {
  @ApiProperty() type!: string;
  @ApiProperty({ enum: ['True', 'False', 'Unknown'] }) status!: string;
  @ApiProperty() reason!: string;
  @ApiProperty() message!: string;
  @ApiProperty() lastTransitionTime!: string;
}

export class TargetDto {
  @ApiProperty() cluster!: string;
  @ApiProperty() clusterGroup!: string;
  @ApiProperty({ example: 'Ready' }) phase!: string;
  @ApiProperty({ type: [ConditionDto] }) conditions!: ConditionDto[];
  @ApiProperty() generation!: number;
  @ApiPropertyOptional({ nullable: true, type: Number }) observedGeneration!: number | null;
  @ApiPropertyOptional({ nullable: true, type: String, example: 'v1.2.0@sha256:…' }) lastAppliedRevision!: string | null;
  @ApiProperty({ type: 'array', items: { type: 'object' }, description: 'components and their instances' }) components!: unknown[];
  @ApiProperty() nextRunAt!: string;
  @ApiProperty({ description: 'consecutive failures (backoff)' }) attempt!: number;
}

export class TargetPageDto {
  @ApiProperty({ type: [TargetDto] }) items!: TargetDto[];
  @ApiProperty() total!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export class RunDto {
  @ApiProperty() id!: string;
  @ApiProperty() generation!: number;
  @ApiPropertyOptional({ nullable: true, type: String }) revision!: string | null;
  @ApiProperty({ enum: ['Created', 'SpecChanged', 'NewRevision', 'Manual', 'Retry', 'Interval', 'Deletion'], description: 'why it ran' }) trigger!: string;
  @ApiProperty({ enum: ['Running', 'Succeeded', 'Failed', 'Abandoned'], description: 'Abandoned: its hub lost the lease before writing a result' }) result!: string;
  @ApiProperty() startedAt!: string;
  @ApiPropertyOptional({ nullable: true, type: String }) finishedAt!: string | null;
  @ApiPropertyOptional({ nullable: true, type: Number }) durationMs!: number | null;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'the hub replica that ran it' }) leaseOwner!: string | null;
  @ApiProperty({ type: 'array', items: { type: 'object' }, description: 'per instance: created, updated, deleted, unchanged' }) instances!: unknown[];
  @ApiPropertyOptional({ nullable: true, type: String }) error!: string | null;
}

export class RunPageDto {
  @ApiProperty({ type: [RunDto] }) items!: RunDto[];
  @ApiProperty() total!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export class EventDto {
  @ApiPropertyOptional({ nullable: true, type: String }) cluster!: string | null;
  @ApiProperty({ enum: ['Normal', 'Warning'] }) type!: string;
  @ApiProperty() reason!: string;
  @ApiProperty() message!: string;
  @ApiProperty() time!: string;
}

export class EventPageDto {
  @ApiProperty({ type: [EventDto] }) items!: EventDto[];
  @ApiProperty() total!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export class ReconcileRequestedDto {
  @ApiProperty({ description: 'Targets scheduled to run now' }) requested!: number;
}

export class DeletionDto {
  @ApiProperty({ enum: ['deleted', 'deleting'] }) state!: 'deleted' | 'deleting';
}
