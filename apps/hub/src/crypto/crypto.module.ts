import { Global, Module } from '@nestjs/common';
import { join } from 'node:path';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { CryptoRepository } from './crypto.repository';
import { loadKeyring } from './keyring';
import { HUB_LOGGER } from '../logging/logging.module';
import type { Logger } from 'pino';

/** Process-level seam every service may use: crypto, with the keyring. */
@Global()
@Module({
  providers: [
    {
      provide: CryptoRepository,
      inject: [HUB_CONFIG, HUB_LOGGER],
      useFactory: (config: HubConfig, logger: Logger) => {
        const ring = loadKeyring({
          keys: config.encryptionKeys,
          keyFile: config.encryptionKeyFile,
          generatedKeyFile: join(config.dataDir, 'encryption-keys'),
        });
        if (ring.generatedFile && config.databaseUrl) {
          logger.warn(
            { keyFile: ring.generatedFile },
            'credentials are sealed with keys from a file under the data dir; every hub sharing this database needs the same keys (set FLOTILLA_ENCRYPTION_KEYS or FLOTILLA_ENCRYPTION_KEY_FILE)',
          );
        }
        return new CryptoRepository(ring);
      },
    },
  ],
  exports: [CryptoRepository],
})
export class CryptoModule {}
