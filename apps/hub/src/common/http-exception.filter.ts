import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, HttpStatus } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { LoggedRequest } from '../logging/request-logging';
import { DatabaseOutage, isDatabaseUnreachable, RETRY_AFTER_SECONDS } from './database-outage';
import { ConflictError, DomainError, ForbiddenError, InvalidInputError, NotFoundError, TooManyRequestsError, UnauthorizedError, UnavailableError } from './errors';

/** The body of every error response. */
export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  /** every validation problem, one per line, naming the field */
  problems?: string[];
  requestId?: string;
}

const DOMAIN_STATUS: Array<[new (...args: never[]) => DomainError, number]> = [
  [InvalidInputError, HttpStatus.BAD_REQUEST],
  [NotFoundError, HttpStatus.NOT_FOUND],
  [ConflictError, HttpStatus.CONFLICT],
  [UnauthorizedError, HttpStatus.UNAUTHORIZED],
  [ForbiddenError, HttpStatus.FORBIDDEN],
  [TooManyRequestsError, HttpStatus.TOO_MANY_REQUESTS],
  [UnavailableError, HttpStatus.SERVICE_UNAVAILABLE],
];

/** Maps domain errors and Nest's HTTP exceptions to one JSON shape; anything else is a logged 500. */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  constructor(
    private readonly logger: Logger,
    private readonly outage?: DatabaseOutage,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<LoggedRequest>();
    const res = http.getResponse<ServerResponse>();
    const body = this.toBody(exception, req);
    if (body.statusCode === HttpStatus.UNAUTHORIZED) res.setHeader('WWW-Authenticate', 'Bearer');
    if (body.statusCode === HttpStatus.SERVICE_UNAVAILABLE) res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
    if (exception instanceof TooManyRequestsError) res.setHeader('Retry-After', String(exception.retryAfterSeconds));
    const allow = (exception as { allow?: unknown } | null)?.allow;
    if (body.statusCode === HttpStatus.METHOD_NOT_ALLOWED && typeof allow === 'string') res.setHeader('Allow', allow);
    res.statusCode = body.statusCode;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(JSON.stringify(body));
  }

  private toBody(exception: unknown, req: LoggedRequest): ErrorBody {
    const requestId = req.id;
    if (exception instanceof DomainError) {
      const status = DOMAIN_STATUS.find(([cls]) => exception instanceof cls)?.[1] ?? HttpStatus.INTERNAL_SERVER_ERROR;
      const problems = exception instanceof InvalidInputError ? exception.problems : undefined;
      return { statusCode: status, error: exception.code, message: exception.message, problems, requestId };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const cause = exception.cause;
      if (cause && typeof cause === 'object' && 'type' in cause) {
        // body-parser failures, mapped by the Express adapter
        return { statusCode: status, error: httpErrorName(status), message: requestBodyMessage(cause), requestId };
      }
      const response = exception.getResponse();
      if (typeof response === 'object' && response !== null && !('message' in response)) {
        // e.g. /readyz: the endpoint's own body
        return { statusCode: status, ...(response as object), requestId } as ErrorBody;
      }
      const message = typeof response === 'string' ? response : String((response as { message: unknown }).message);
      return { statusCode: status, error: httpErrorName(status), message, requestId };
    }
    // Body-parser failures (malformed JSON, too large) carry their own 4xx status.
    const status = (exception as { status?: unknown; statusCode?: unknown })?.status ?? (exception as { statusCode?: unknown })?.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return { statusCode: status, error: httpErrorName(status), message: requestBodyMessage(exception), requestId };
    }
    if (isDatabaseUnreachable(exception)) {
      this.outage?.failed(exception);
      return { statusCode: 503, error: 'ServiceUnavailable', message: `the database is not reachable; retry in ${RETRY_AFTER_SECONDS} s`, requestId };
    }
    (req.log ?? this.logger).error({ err: loggableError(exception) }, 'unhandled error');
    return { statusCode: 500, error: 'InternalServerError', message: 'internal error; see the hub log for this request id', requestId };
  }
}

/** An error for the log without what a failed query carries: its SQL parameters may be secrets. */
export function loggableError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const { name, message, stack } = err;
  const code = (err as { code?: unknown; driverError?: { code?: unknown } }).driverError?.code ?? (err as { code?: unknown }).code;
  const type = err.constructor?.name && err.constructor.name !== 'Object' ? err.constructor.name : name;
  return { type, name, message, stack, ...(code !== undefined ? { code } : {}) };
}

function requestBodyMessage(exception: unknown): string {
  const type = (exception as { type?: unknown }).type;
  if (type === 'entity.parse.failed') return 'request body is not valid JSON';
  if (type === 'entity.too.large') return 'request body is too large';
  return exception instanceof Error ? exception.message : 'bad request';
}

function httpErrorName(status: number): string {
  const name = HttpStatus[status];
  return name ? name.toLowerCase().replace(/(^|_)(\w)/g, (_, __, c: string) => c.toUpperCase()) : 'Error';
}
