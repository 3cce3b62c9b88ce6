import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsString, Matches } from 'class-validator';
import { DNS_LABEL, DNS_LABEL_MESSAGE, Optional } from '../common/validators';
import type { CrossFieldChecks } from '../common/validation.pipe';
import { ROLES, type Role } from './roles';

export class CreateTokenDto implements CrossFieldChecks {
  @ApiProperty({ example: 'ci-deployer', description: 'DNS label naming the token holder' })
  @IsString({ message: 'must be a string' })
  @Matches(DNS_LABEL, { message: DNS_LABEL_MESSAGE })
  name!: string;

  @ApiProperty({ enum: ROLES })
  @IsIn(ROLES as Role[], { message: `must be one of ${ROLES.join(', ')}` })
  role!: Role;

  @ApiPropertyOptional({ example: 'team-a', description: 'the tenant the token acts in (role viewer or operator); absent: global' })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Matches(DNS_LABEL, { message: DNS_LABEL_MESSAGE })
  tenant?: string;

  @ApiPropertyOptional({
    example: '2027-01-31T00:00:00Z',
    description: 'when the token stops working (ISO 8601, in the future); required when the hub sets FLOTILLA_TOKEN_MAX_LIFETIME, and within it',
  })
  @Optional()
  @IsISO8601({ strict: true }, { message: 'must be an ISO 8601 time such as 2027-01-31T00:00:00Z' })
  expiresAt?: string;

  crossFieldProblems(): string[] {
    return this.tenant !== undefined && this.role === 'admin' ? ['role: admin is global only; a token for a tenant is viewer or operator'] : [];
  }
}

export class TokenDto {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ROLES }) role!: Role;
  @ApiProperty({ nullable: true, type: String, description: 'the tenant it acts in; null: global' }) tenant!: string | null;
  @ApiProperty() createdAt!: string;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'when the token stops working; null: never' }) expiresAt!: string | null;
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
