import { Controller, Get, Header, Module } from '@nestjs/common';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { Public } from '../auth/roles';

/** The hub's own metrics registry (never prom-client's global one, so apps in one process don't collide). */
export class MetricsRegistry extends Registry {
  constructor() {
    super();
    collectDefaultMetrics({ register: this });
  }
}

@Public()
@Controller()
export class MetricsController {
  constructor(private readonly registry: MetricsRegistry) {}

  @Get('metrics')
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  metrics(): Promise<string> {
    return this.registry.metrics();
  }
}

@Module({
  providers: [{ provide: MetricsRegistry, useFactory: () => new MetricsRegistry() }],
  controllers: [MetricsController],
  exports: [MetricsRegistry],
})
export class MetricsModule {}
