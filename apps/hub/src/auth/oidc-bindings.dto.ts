import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Length, Matches } from 'class-validator';
import { BINDING_CLAIMS, type BindingClaim } from '../database/entities';
import { DNS_LABEL, DNS_LABEL_MESSAGE, OptionalOrNull } from '../common/validators';
import { ROLES, type Role } from './roles';

/** Printable text without control characters (claims are compared exactly). */
// eslint-disable-next-line no-control-regex -- control characters are what it refuses
const CLAIM_VALUE = /^[^\u0000-\u001f\u007f]+$/;

export class CreateOidcBindingDto {
  @ApiProperty({ enum: BINDING_CLAIMS, description: 'what the binding matches: one of the groups in the token, or its subject (`sub`)' })
  @IsIn(BINDING_CLAIMS as BindingClaim[], { message: `must be one of ${BINDING_CLAIMS.join(', ')}` })
  claim!: BindingClaim;

  @ApiProperty({ example: 'team-a', description: 'the group name or subject, exactly as the provider puts it in tokens' })
  @IsString({ message: 'must be a string' })
  @Length(1, 255, { message: 'must be 1 to 255 characters' })
  @Matches(CLAIM_VALUE, { message: 'must not contain control characters' })
  value!: string;

  @ApiPropertyOptional({ nullable: true, type: String, example: 'team-a', description: 'the tenant the role holds in; absent or null: global (the only place admin may be given)' })
  @OptionalOrNull()
  @IsString({ message: 'must be a string' })
  @Matches(DNS_LABEL, { message: DNS_LABEL_MESSAGE })
  tenant?: string | null;

  @ApiProperty({ enum: ROLES, description: 'the role it gives; admin only without a tenant (admin is only ever global)' })
  @IsIn(ROLES as Role[], { message: `must be one of ${ROLES.join(', ')}` })
  role!: Role;
}

export class OidcBindingDto {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: BINDING_CLAIMS }) claim!: BindingClaim;
  @ApiProperty() value!: string;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'null: global' }) tenant!: string | null;
  @ApiProperty({ enum: ROLES }) role!: Role;
  @ApiProperty() createdAt!: string;
}

export class OidcBindingPageDto {
  @ApiProperty({ type: [OidcBindingDto] }) items!: OidcBindingDto[];
  @ApiProperty() total!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

/** What a client needs to sign in to this hub; public, holds no secret. */
export class OidcSettingsDto {
  @ApiProperty({ example: 'https://login.example.com', description: 'the OpenID provider' }) issuer!: string;
  @ApiProperty({ example: 'flotilla', description: 'the public client the CLI and the page sign in as' }) clientId!: string;
  @ApiProperty({ example: 'flotilla', description: 'the audience the hub requires in access tokens' }) audience!: string;
}
