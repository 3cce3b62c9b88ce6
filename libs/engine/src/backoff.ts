// Retry delays: exponential in the attempt number, capped, with jitter so a
// fleet of Targets that failed together does not retry in lockstep.

export interface BackoffOptions {
  /** delay after the first failure */
  initialMs: number;
  /** growth per further failure */
  factor: number;
  /** no delay is longer than this, jitter included */
  maxMs: number;
  /** spread as a fraction of the delay: 0.2 gives 80 %–120 % */
  jitter: number;
}

export function defaultBackoffOptions(): BackoffOptions {
  return { initialMs: 5_000, factor: 2, maxMs: 10 * 60_000, jitter: 0.2 };
}

/**
 * Delay before retry number `attempt` (1 = after the first failure).
 * `random` returns [0, 1); pass a fixed one in tests.
 */
export function backoffDelay(attempt: number, options: BackoffOptions = defaultBackoffOptions(), random: () => number = Math.random): number {
  const n = Math.max(1, Math.floor(attempt));
  // Exponent capped so huge attempt counts cannot overflow to Infinity/NaN.
  const base = Math.min(options.maxMs, options.initialMs * Math.pow(options.factor, Math.min(n - 1, 1000)));
  const spread = 1 - options.jitter + 2 * options.jitter * random();
  return Math.max(0, Math.min(options.maxMs, Math.round(base * spread)));
}
