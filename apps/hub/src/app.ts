import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { DestinationStream } from 'pino';
import { AppModule } from './app.module';
import type { Announce } from './auth/auth.module';
import { HttpErrorFilter } from './common/http-exception.filter';
import { DtoValidationPipe } from './common/validation.pipe';
import type { HubConfig } from './config/hub-config';
import { AuditRecorder } from './audit/audit-recorder';
import { auditTrail } from './audit/audit-trail';
import { AuthService } from './auth/auth.service';
import { Clock } from './common/clock';
import { authenticateEarly } from './auth/early-authentication';
import { DatabaseOutage } from './common/database-outage';
import { requireJsonBody } from './common/json-body';
import { methodNotAllowed } from './common/method-not-allowed';
import { createLogger, PinoNestLogger } from './logging/logger';
import { requestLogging } from './logging/request-logging';
import { MetricsRegistry } from './metrics/metrics.module';
import { setupOpenApi } from './openapi/openapi';
import { defaultStatusPageDir, statusPage } from './status-page/status-page';
import type { SchedulerModuleOptions } from './scheduler/scheduler.module';

export interface HubAppOptions {
  /** where JSON log lines go (default stdout) */
  logDestination?: DestinationStream;
  /** prints lines meant for the operator, such as where the first admin token is (default console.log) */
  announce?: Announce;
  /** a person reads `announce`: the first admin token is printed too (default: whether stdout is a terminal) */
  interactive?: boolean;
  /** the scheduler's ports: the TargetRunner (engine) and TagResolver; tests and benchmarks pass their own */
  scheduler?: SchedulerModuleOptions;
  /** where services take the time (tests pass a FixedClock); default the system clock */
  clock?: Clock;
  /** where the built status page is (default: dist/ui, see defaultStatusPageDir) */
  statusPageDir?: string;
}

/** Builds the hub application (not yet listening); main.ts and the tests share it. */
export async function createHubApp(config: HubConfig, options: HubAppOptions = {}): Promise<INestApplication> {
  const logger = createLogger(config.logLevel, options.logDestination);
  const announce = options.announce ?? ((line: string) => console.log(line));
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot({ config, logger, announce, interactive: options.interactive ?? process.stdout.isTTY === true, scheduler: options.scheduler, clock: options.clock }), {
    logger: new PinoNestLogger(logger),
    abortOnError: false,
    bodyParser: false,
  });
  // API answers are not cached by clients: hashing every body for an ETag costs CPU on each read
  app.set('etag', false);
  // nothing tells a caller which framework answers
  app.disable('x-powered-by');
  const metrics = app.get(MetricsRegistry);
  const outage = new DatabaseOutage(logger);
  app.use(
    requestLogging(logger, (m, r, s, t) => {
      metrics.observeRequest(m, r, s, t);
      // routes that read the database (the API through its token lookup, /readyz through its ping)
      if (r.startsWith('/api/v1') || r === '/readyz') outage.answered(s);
    }),
  );
  const express = app.getHttpAdapter().getInstance() as { router?: { stack: never[] } };
  // after the request log (every request has its id), before anything that may refuse it
  const audit = app.get(AuditRecorder);
  app.use(auditTrail({ record: (e) => audit.record(e), clock: app.get(Clock), layers: () => express.router?.stack ?? [] }));
  // the status page's files need no token: its data come from the API with the signed-in one
  app.use(statusPage(options.statusPageDir ?? defaultStatusPageDir()));
  app.use(methodNotAllowed({ layers: () => express.router?.stack ?? [] }));
  // the token before the body: a caller without one learns nothing from 400, 413 or 415
  app.use(authenticateEarly(app.get(AuthService)));
  app.use(requireJsonBody);
  // A kubeconfig may be up to 256 KiB; anything past 1 MiB is refused with 413.
  // Every JSON type requireJsonBody lets through, application/merge-patch+json included.
  app.useBodyParser('json', { limit: '1mb', type: ['application/json', 'application/*+json'] });
  app.useGlobalPipes(new DtoValidationPipe());
  app.useGlobalFilters(new HttpErrorFilter(logger, outage));
  setupOpenApi(app);
  // no enableShutdownHooks(): main.ts handles SIGTERM and SIGINT itself
  return app;
}

/** The URL a listening app answers on, as a client would use it. */
export function listeningUrl(app: INestApplication): string {
  const address = app.getHttpServer().address() as { address: string; port: number; family: string };
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}
