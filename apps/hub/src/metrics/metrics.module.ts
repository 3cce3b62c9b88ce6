import { Controller, Get, Header, Module, Req } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { AuthModule } from '../auth/auth.module';
import { AuthService } from '../auth/auth.service';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { Public } from '../auth/roles';

/** The hub's own metrics registry (never prom-client's global one, so apps in one process don't collide). */
export class MetricsRegistry extends Registry {
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route'>;

  constructor() {
    super();
    collectDefaultMetrics({ register: this });
    this.httpRequests = new Counter({
      name: 'flotilla_hub_http_requests_total',
      help: 'HTTP requests answered, by route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [this],
    });
    this.httpDuration = new Histogram({
      name: 'flotilla_hub_http_request_duration_seconds',
      help: 'HTTP request duration, by route pattern',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [this],
    });
  }

  /** Route is the matched pattern (`/api/v1/clusters/:name`), never the raw path, to bound cardinality. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.httpRequests.inc({ method, route, status: String(status) });
    this.httpDuration.observe({ method, route }, seconds);
  }
}

/** Guarded by FLOTILLA_METRICS_TOKEN alone when set (a scraper needs no API role), else by a global API token. */
@Public()
@Controller()
export class MetricsController {
  constructor(
    private readonly registry: MetricsRegistry,
    private readonly auth: AuthService,
  ) {}

  @Get('metrics')
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  async metrics(@Req() req: IncomingMessage): Promise<string> {
    await this.auth.checkMetricsAccess(req.headers.authorization, req.socket.remoteAddress);
    return this.registry.metrics();
  }
}

@Module({
  imports: [AuthModule],
  providers: [{ provide: MetricsRegistry, useFactory: () => new MetricsRegistry() }],
  controllers: [MetricsController],
  exports: [MetricsRegistry],
})
export class MetricsModule {}
