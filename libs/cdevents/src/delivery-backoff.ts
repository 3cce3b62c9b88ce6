/** Retry timing of a sink delivery. */
export interface DeliveryBackoff {
  initialMs: number;
  factor: number;
  maxMs: number;
  /** attempts before the event is marked failed */
  maxAttempts: number;
}

export function defaultDeliveryBackoff(): DeliveryBackoff {
  // 1 s doubling to 5 min: 20 attempts span about an hour and a quarter of sink outage
  return { initialMs: 1000, factor: 2, maxMs: 300_000, maxAttempts: 20 };
}

/** Wait before attempt `attempts + 1`, after `attempts` failed ones (no jitter: deliveries are per Project, in order, not a herd). */
export function retryDelayMs(b: DeliveryBackoff, attempts: number): number {
  return Math.min(b.maxMs, b.initialMs * b.factor ** Math.max(0, attempts - 1));
}
