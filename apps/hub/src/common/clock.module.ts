import { type DynamicModule, Global, Module } from '@nestjs/common';
import { Clock, SystemClock } from './clock';

/** Provides the one Clock to every module (tests pass a FixedClock through createHubApp). */
@Global()
@Module({})
export class ClockModule {
  static forRoot(clock: Clock = new SystemClock()): DynamicModule {
    return { module: ClockModule, providers: [{ provide: Clock, useValue: clock }], exports: [Clock] };
  }
}
