import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { LimitQuery } from '../common/paging';
import { Optional } from '../common/validators';
import { DELIVERY_STATES, type DeliveryState } from '../database/entities';

export class DeliveryQuery extends LimitQuery {
  @ApiPropertyOptional({ enum: DELIVERY_STATES, description: 'only deliveries in this state' })
  @Optional()
  @IsIn(DELIVERY_STATES, { message: `must be one of ${DELIVERY_STATES.join(', ')}` })
  state?: DeliveryState;
}

/** One CDEvent on its way to the Project's sink. */
export class DeliveryDto {
  @ApiProperty({ description: 'the CDEvent id (context.id), the same on every attempt' }) id!: string;
  @ApiProperty({ example: 'dev.cdevents.service.deployed.0.3.0' }) type!: string;
  @ApiProperty({ enum: DELIVERY_STATES, description: 'failed: given up after the last attempt' }) state!: string;
  @ApiProperty() attempts!: number;
  @ApiProperty({ type: String, nullable: true, description: "the last attempt's error" }) lastError!: string | null;
  @ApiProperty() createdAt!: string;
  @ApiProperty({ type: String, nullable: true, description: 'when a pending delivery is tried next' }) nextAttemptAt!: string | null;
  @ApiProperty({ type: String, nullable: true }) deliveredAt!: string | null;
}

/** Newest first. */
export class DeliveryListDto {
  @ApiProperty({ type: [DeliveryDto] }) items!: DeliveryDto[];
  @ApiProperty() limit!: number;
}
