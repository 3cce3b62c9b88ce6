import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { Optional } from '../common/validators';
import { ROLLOUT_ON_FAILURE, type RolloutOnFailure } from './on-failure';

export const WAVE_STATES = ['waiting', 'awaitingApproval', 'progressing', 'soaking', 'done', 'failed', 'rolledBack'] as const;

export class WaveCountsDto {
  @ApiProperty({ description: 'clusters in the wave (leaving ones aside)' }) total!: number;
  @ApiProperty({ description: 'not yet on the revision' }) pending!: number;
  @ApiProperty({ description: 'on the revision, not yet Healthy' }) progressing!: number;
  @ApiProperty({ description: 'Ready and Healthy on the revision' }) healthy!: number;
  @ApiProperty({ description: 'failed on the revision, or not Healthy within the progress deadline' }) failed!: number;
}

export class WaveViewDto {
  @ApiProperty() index!: number;
  @ApiProperty({ type: [String], description: 'its cluster groups; empty for the last wave of groups no wave names' }) groups!: string[];
  @ApiProperty({ enum: WAVE_STATES }) state!: string;
  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'since when it is in this state, where known' }) since?: string;
  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'soaking: when the soak ends; done: when it ended' }) soakUntil?: string;
  @ApiProperty({ type: WaveCountsDto }) counts!: WaveCountsDto;
  @ApiProperty({ description: 'failures it tolerates' }) failureBudget!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'clusters that may move at once; null: all' }) batchSize!: number | null;
  @ApiPropertyOptional({ description: 'why its clusters not yet moving wait' }) message?: string;
  @ApiPropertyOptional({ description: 'outside this wave\'s own rollout windows now: which window says so (its clusters start no new revision)' }) windowClosed?: string;
}

export class RolloutActionDto {
  @ApiProperty({ enum: ['approve', 'hold', 'retry', 'rollback'] }) action!: string;
  @ApiProperty({ description: 'the revision it was taken on' }) revision!: string;
  @ApiPropertyOptional({ description: 'approve: the wave approved' }) wave?: number;
  @ApiProperty({ description: 'who: the token name, or the email of a person signed in' }) by!: string;
  @ApiProperty({ type: String, format: 'date-time' }) at!: string;
}

export class RolledBackDto {
  @ApiProperty({ description: 'the failing revision' }) revision!: string;
  @ApiProperty({ description: 'the wave it was rolled back from' }) wave!: number;
  @ApiProperty({ description: 'who: `flotilla (automatic…)` or the operator' }) by!: string;
  @ApiProperty({ type: String, format: 'date-time' }) at!: string;
}

export class ApproveWaveDto {
  @ApiPropertyOptional({ description: 'index of the wave to approve; default: the wave awaiting approval', minimum: 0, maximum: 15 })
  @Optional()
  @IsInt({ message: 'must be a whole number' })
  @Min(0, { message: 'must be at least 0' })
  @Max(15, { message: 'must be at most 15' })
  wave?: number;
}

export class RolloutViewStateDto {
  @ApiProperty() project!: string;
  @ApiProperty({ type: String, nullable: true, description: 'tag@sha256:… being rolled out; null before the tag resolved' }) revision!: string | null;
  @ApiProperty({ enum: ROLLOUT_ON_FAILURE }) onFailure!: RolloutOnFailure;
  @ApiProperty({ type: [WaveViewDto], description: 'in order; empty when the Project has no waves (every cluster moves at once)' }) waves!: WaveViewDto[];
  @ApiProperty({ description: 'on hold: no cluster starts the revision until a retry' }) onHold!: boolean;
  @ApiPropertyOptional({ description: 'outside the rollout windows now: which window says so (no cluster starts the revision; drift correction goes on)' }) windowClosed?: string;
  @ApiPropertyOptional({ type: RolledBackDto, description: 'the revision was rolled back: its clusters from that wave on returned to the last revision each was Ready and Healthy on, until a retry or a new revision' }) rolledBack?: RolledBackDto;
  @ApiProperty({ type: [RolloutActionDto], description: 'approvals, holds and retries, the last 50, oldest first' }) actions!: RolloutActionDto[];
}
