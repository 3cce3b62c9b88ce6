import { type DynamicModule, Global, Module } from '@nestjs/common';
import type { Logger } from 'pino';

/** Injection token of the root pino Logger. */
export const HUB_LOGGER = Symbol('HUB_LOGGER');

@Global()
@Module({})
export class LoggingModule {
  static forRoot(logger: Logger): DynamicModule {
    return { module: LoggingModule, providers: [{ provide: HUB_LOGGER, useValue: logger }], exports: [HUB_LOGGER] };
  }
}
