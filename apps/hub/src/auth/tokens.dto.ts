import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Matches } from 'class-validator';
import { DNS_LABEL, DNS_LABEL_MESSAGE } from '../common/validators';
import { ROLES, type Role } from './roles';

export class CreateTokenDto {
  @ApiProperty({ example: 'ci-deployer', description: 'DNS label naming the token holder' })
  @IsString({ message: 'must be a string' })
  @Matches(DNS_LABEL, { message: DNS_LABEL_MESSAGE })
  name!: string;

  @ApiProperty({ enum: ROLES })
  @IsIn(ROLES as Role[], { message: `must be one of ${ROLES.join(', ')}` })
  role!: Role;
}

export class TokenDto {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ROLES }) role!: Role;
  @ApiProperty() createdAt!: string;
  @ApiPropertyOptional({ nullable: true, type: String }) revokedAt!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) lastUsedAt!: string | null;
}

/** Returned once, at creation: the only time the token is shown. */
export class CreatedTokenDto extends TokenDto {
  @ApiProperty({ description: 'the bearer token; store it now, it cannot be shown again' })
  token!: string;
}

export class TokenPageDto {
  @ApiProperty({ type: [TokenDto] }) items!: TokenDto[];
  @ApiProperty() total!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}
