import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** How an agent cluster's agent is doing, as the hub sees it. */
export class AgentViewDto {
  @ApiProperty({ description: 'whether its agent holds a stream to a hub replica now' }) connected!: boolean;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'when it last connected or disconnected' }) since!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, example: '0.1.0' }) version!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) lastHeartbeat!: string | null;
  @ApiProperty({ description: 'whether an agent traded a bootstrap token for a client certificate (false: none yet, or reset)' }) registered!: boolean;
  @ApiPropertyOptional({ description: 'one-time token for the agent to register with; shown only when issued' }) bootstrapToken?: string;
  @ApiPropertyOptional() bootstrapExpiresAt?: string;
}

export class BootstrapTokenDto {
  @ApiProperty({ description: 'one-time, expiring; shown only now' }) bootstrapToken!: string;
  @ApiProperty() bootstrapExpiresAt!: string;
}
