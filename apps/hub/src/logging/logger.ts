import type { LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config/hub-config';

// Header and field names whose values are secrets wherever they appear in a log object.
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  '*.token',
  '*.password',
  '*.clientKeyData',
  '*.kubeconfig',
  '*.dockerConfigJson',
];

/** The hub's JSON logger, `time` in ISO 8601 (UTC) for people and log stores alike; `destination` lets tests capture every line. */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino({ level, base: { service: 'flotilla-hub' }, timestamp: pino.stdTimeFunctions.isoTime, redact: { paths: REDACT, censor: '[redacted]' } }, destination);
}

/** Routes Nest's own log calls into pino; its chatty startup lines (module and route lists) go to debug. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string): void {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }
}
