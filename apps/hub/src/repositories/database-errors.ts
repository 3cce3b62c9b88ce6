// PostgreSQL error codes stay here: repositories turn them into domain errors,
// services never see a driver error code.

const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';
const SERIALIZATION_FAILURE = '40001';
const DEADLOCK_DETECTED = '40P01';

export function sqlState(err: unknown): string | undefined {
  const e = err as { driverError?: { code?: unknown }; code?: unknown } | null;
  const code = e?.driverError?.code ?? e?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The name of the violated constraint, when the driver reports it. */
export function violatedConstraint(err: unknown): string | undefined {
  const e = err as { driverError?: { constraint?: unknown }; constraint?: unknown } | null;
  const c = e?.driverError?.constraint ?? e?.constraint;
  return typeof c === 'string' ? c : undefined;
}

export function isUniqueViolation(err: unknown): boolean {
  return sqlState(err) === UNIQUE_VIOLATION;
}

export function isForeignKeyViolation(err: unknown): boolean {
  return sqlState(err) === FOREIGN_KEY_VIOLATION;
}

/**
 * PostgreSQL ended the transaction because of concurrent ones (a deadlock, or a
 * serialization failure): nothing of it was written, and the same work run
 * again may well succeed.
 */
export function isConcurrencyConflict(err: unknown): boolean {
  const code = sqlState(err);
  return code === DEADLOCK_DETECTED || code === SERIALIZATION_FAILURE;
}
