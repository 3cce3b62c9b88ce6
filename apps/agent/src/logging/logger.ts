// JSON-lines logs on stdout (pino), with the message first and fields after,
// so controller code reads `log.info('what happened', { project })`.
import pino, { type DestinationStream } from 'pino';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export function createLogger(level: 'debug' | 'info' | 'warn' | 'error', destination?: DestinationStream): Logger {
  // ISO 8601 times, as the hub's
  const p = pino({ level, base: { service: 'flotilla-agent' }, timestamp: pino.stdTimeFunctions.isoTime, redact: { paths: ['*.token', '*.password'], censor: '[redacted]' } }, destination);
  return {
    debug: (m, f) => p.debug(f ?? {}, m),
    info: (m, f) => p.info(f ?? {}, m),
    warn: (m, f) => p.warn(f ?? {}, m),
    error: (m, f) => p.error(f ?? {}, m),
  };
}
