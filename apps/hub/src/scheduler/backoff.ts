// Retry delays after failures: exponential, capped, jittered so Targets that
// failed together do not retry in lockstep. (libs/engine has the same
// function; the hub switches to it once the engine is merged.)

export interface BackoffOptions {
  /** delay after the first failure */
  initialMs: number;
  factor: number;
  /** no delay is longer, jitter included */
  maxMs: number;
  /** spread as a fraction of the delay: 0.2 gives 80 %–120 % */
  jitter: number;
}

export function defaultBackoffOptions(): BackoffOptions {
  return { initialMs: 5_000, factor: 2, maxMs: 10 * 60_000, jitter: 0.2 };
}

/** Delay before retry number `attempt` (1 = after the first failure); `random` in [0, 1). */
export function backoffDelay(attempt: number, options: BackoffOptions = defaultBackoffOptions(), random: () => number = Math.random): number {
  const n = Math.max(1, Math.floor(attempt));
  const base = Math.min(options.maxMs, options.initialMs * Math.pow(options.factor, Math.min(n - 1, 64)));
  const spread = 1 - options.jitter + 2 * options.jitter * random();
  return Math.max(0, Math.min(options.maxMs, Math.round(base * spread)));
}
