import { Global, Module } from '@nestjs/common';
import { join } from 'node:path';
import { ClockRepository } from '../common/clock.repository';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { CryptoRepository } from './crypto.repository';
import { loadKeyring } from './keyring';

/** Process-level seams every service may use: crypto (with the keyring) and the clock. */
@Global()
@Module({
  providers: [
    {
      provide: CryptoRepository,
      inject: [HUB_CONFIG],
      useFactory: (config: HubConfig) =>
        new CryptoRepository(
          loadKeyring({
            keys: config.encryptionKeys,
            keyFile: config.encryptionKeyFile,
            generatedKeyFile: join(config.dataDir, 'encryption-keys'),
          }),
        ),
    },
    ClockRepository,
  ],
  exports: [CryptoRepository, ClockRepository],
})
export class CryptoModule {}
