import { Controller, HttpCode, Module, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import { RequiresRole } from '../auth/roles';
import { ApiErrors } from '../common/openapi-errors';
import { RepositoriesModule } from '../repositories/repositories.module';
import { CredentialsService } from './credentials.service';

class RotationResultDto {
  @ApiProperty({ description: 'id of the key that now seals every credential' }) currentKeyId!: string;
  @ApiProperty({ description: 'how many credentials were re-sealed (stored credentials and CDEvents sink headers)' }) resealed!: number;
}

@ApiTags('credentials')
@ApiBearerAuth()
@ApiErrors()
@RequiresRole('admin')
@Controller('api/v1/credentials')
export class CredentialsController {
  constructor(private readonly credentials: CredentialsService) {}

  /** Re-seals every stored credential and CDEvents sink header with the current key (the first in the keyring); also runs at start. */
  @Post('rotate')
  @HttpCode(200)
  @ApiOkResponse({ type: RotationResultDto })
  rotate(): Promise<RotationResultDto> {
    return this.credentials.rotate();
  }
}

@Module({
  imports: [RepositoriesModule],
  controllers: [CredentialsController],
  providers: [CredentialsService],
  exports: [CredentialsService],
})
export class CredentialsModule {}
