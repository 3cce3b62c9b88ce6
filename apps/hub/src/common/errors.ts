// Domain errors: services throw these; only the HTTP layer maps them to statuses.

export class DomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad input: every problem found, one line each, naming the field. */
export class InvalidInputError extends DomainError {
  constructor(readonly problems: string[]) {
    super('InvalidInput', problems.length === 1 ? problems[0] : `${problems.length} problems: ${problems.join('; ')}`);
  }
}

export class NotFoundError extends DomainError {
  constructor(kind: string, name: string) {
    super('NotFound', `${kind} "${name}" not found`);
  }
}

export class ConflictError extends DomainError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('Conflict', message, options);
  }
}

/** A create that collides with an existing object of the same name (HTTP 409, like any ConflictError). */
export class AlreadyExistsError extends ConflictError {
  constructor(
    readonly kind: string,
    readonly objectName: string,
    options?: { cause?: unknown },
  ) {
    super(`${kind} "${objectName}" already exists`, options);
  }
}

/** A write that refers to an object that is gone (e.g. deleted by a concurrent request). */
export class ReferenceGoneError extends ConflictError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export class UnauthorizedError extends DomainError {
  constructor(message: string) {
    super('Unauthorized', message);
  }
}

export class ForbiddenError extends DomainError {
  constructor(message: string) {
    super('Forbidden', message);
  }
}

/** Something the hub depends on (e.g. the identity provider) cannot be reached now (HTTP 503 with Retry-After). */
export class UnavailableError extends DomainError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ServiceUnavailable', message, options);
  }
}

/** Too many attempts from one caller (HTTP 429 with Retry-After). */
export class TooManyRequestsError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('TooManyRequests', message);
  }
}
