import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Equals } from 'class-validator';

/** How an agent cluster's agent is doing, as the hub sees it. */
export class AgentViewDto {
  @ApiProperty({ description: 'whether its agent holds a stream to a hub replica now' }) connected!: boolean;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'when it last connected or disconnected' }) since!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, example: '0.1.0', description: 'the release the agent said it is when it last connected' }) version!: string | null;
  @ApiProperty({ description: 'whether that version is within the hub\'s skew policy: the same major, and the hub\'s minor or the one before (false for an unknown version or a development build)' }) supported!: boolean;
  @ApiProperty({ description: 'what the skew policy says of the agent\'s version, and what to do when it is outside it', example: 'agent 0.1.0 is within this hub\'s (0.1.0) supported versions (0.0.x and 0.1.x)' }) skew!: string;
  @ApiPropertyOptional({ nullable: true, type: String }) lastHeartbeat!: string | null;
  @ApiProperty({ description: 'whether an agent traded a bootstrap token for a client certificate (false: none yet, or reset)' }) registered!: boolean;
  @ApiPropertyOptional({ description: 'one-time token for the agent to register with; shown only when issued' }) bootstrapToken?: string;
  @ApiPropertyOptional() bootstrapExpiresAt?: string;
}

export class BootstrapTokenDto {
  @ApiProperty({ description: 'one-time, expiring; shown only now' }) bootstrapToken!: string;
  @ApiProperty() bootstrapExpiresAt!: string;
}

/** What an upgrade request did: the image sent to the agent, and the versions it moves between. */
export class AgentUpgradeDto {
  @ApiProperty({ example: 'edge-1' }) cluster!: string;
  @ApiProperty({ description: 'the hub\'s configured agent image (FLOTILLA_AGENT_IMAGE), the only image an upgrade sends', example: 'ghcr.io/flotilla-dev/flotilla-agent:0.2.0' }) image!: string;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'the version the agent said it is when it last connected' }) fromVersion!: string | null;
  @ApiProperty({ description: 'the hub\'s version', example: '0.2.0' }) hubVersion!: string;
  @ApiProperty({ description: 'what happens next' }) message!: string;
}

/** An upgrade takes no input: the image is always the hub's configured one. */
export class AgentUpgradeRequestDto {
  // named only to be refused with a message that says why; its schema admits no value
  @ApiPropertyOptional({ description: 'never accepted: an upgrade sends the hub\'s configured agent image (FLOTILLA_AGENT_IMAGE)', type: String, not: {} })
  @Equals(undefined, { message: 'not accepted: an upgrade sends the hub\'s configured agent image (FLOTILLA_AGENT_IMAGE), never one a request names' })
  image?: string;
}
