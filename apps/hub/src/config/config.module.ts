import { type DynamicModule, Global, Module } from '@nestjs/common';
import type { HubConfig } from './hub-config';

/** Injection token of the parsed HubConfig. */
export const HUB_CONFIG = Symbol('HUB_CONFIG');

@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: HubConfig): DynamicModule {
    return { module: ConfigModule, providers: [{ provide: HUB_CONFIG, useValue: config }], exports: [HUB_CONFIG] };
  }
}
