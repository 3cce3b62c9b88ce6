import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import type { HubConfig } from './config/hub-config';

/** Builds the hub application (not yet listening); main.ts and the tests share it. */
export async function createHubApp(config: HubConfig): Promise<INestApplication> {
  const app = await NestFactory.create(AppModule.forRoot(config), { logger: ['error', 'warn'], abortOnError: false });
  app.enableShutdownHooks();
  return app;
}

/** The URL a listening app answers on, as a client would use it. */
export function listeningUrl(app: INestApplication): string {
  const address = app.getHttpServer().address() as { address: string; port: number; family: string };
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}
