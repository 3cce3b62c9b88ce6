import { defaultDeliveryBackoff, type BindingMode, type DeliveryBackoff } from '@flotilla/cdevents';
import { parseDurationMs } from '../common/duration';

/** CDEvents in (the receiver) and out (delivery to each Project's sink). */
export interface CdeventsConfig {
  /** Port of the receiver (FLOTILLA_EVENTS_PORT); unset means no receiver. 0 picks a free port (tests). */
  receiverPort?: number;
  /** Shared secrets of the receiver, comma-separated (FLOTILLA_EVENTS_SECRETS); required with the port. Two let a secret be rotated. */
  receiverSecrets: string[];
  /** Retries of a delivery: first wait (FLOTILLA_CDEVENTS_RETRY, 1s), longest wait (FLOTILLA_CDEVENTS_RETRY_MAX, 5m), attempts before failed (FLOTILLA_CDEVENTS_MAX_ATTEMPTS, 20). */
  backoff: DeliveryBackoff;
  /** Total time of one POST to a sink (FLOTILLA_CDEVENTS_TIMEOUT, 10s). */
  deadlineMs: number;
  /** CloudEvents HTTP mode of outbound events (FLOTILLA_CDEVENTS_MODE: binary or structured). */
  mode: BindingMode;
  /**
   * This replica delivers the outbox (FLOTILLA_CDEVENTS_DELIVERY, default on),
   * scheduler or not: deliveries are leased, so every replica may take part.
   */
  delivery: boolean;
}

export function defaultCdeventsConfig(): CdeventsConfig {
  return { receiverSecrets: [], backoff: defaultDeliveryBackoff(), deadlineMs: 10_000, mode: 'binary', delivery: true };
}

/** Reads the FLOTILLA_EVENTS_* and FLOTILLA_CDEVENTS_* variables, adding every problem to `problems`. */
export function parseCdeventsConfig(value: (name: string) => string | undefined, problems: string[]): CdeventsConfig {
  const config = defaultCdeventsConfig();
  const port = value('FLOTILLA_EVENTS_PORT');
  if (port !== undefined) {
    if (!/^\d+$/.test(port) || Number(port) > 65535) problems.push(`FLOTILLA_EVENTS_PORT=${JSON.stringify(port)}: expected an integer from 0 to 65535`);
    else config.receiverPort = Number(port);
  }
  const secrets = value('FLOTILLA_EVENTS_SECRETS');
  if (secrets !== undefined) {
    config.receiverSecrets = secrets.split(',').map((s) => s.trim()).filter(Boolean);
    // never echo a secret back, only its position
    const short = config.receiverSecrets.findIndex((s) => s.length < 16);
    if (short >= 0) problems.push(`FLOTILLA_EVENTS_SECRETS: secret ${short + 1} is shorter than 16 characters`);
  }
  if (config.receiverPort !== undefined && config.receiverSecrets.length === 0) {
    problems.push('FLOTILLA_EVENTS_PORT is set but FLOTILLA_EVENTS_SECRETS is not: the receiver only takes signed events; give it at least one secret');
  }
  const durations: Array<[string, (ms: number) => void, number]> = [
    ['FLOTILLA_CDEVENTS_RETRY', (ms) => (config.backoff.initialMs = ms), 10],
    ['FLOTILLA_CDEVENTS_RETRY_MAX', (ms) => (config.backoff.maxMs = ms), 10],
    ['FLOTILLA_CDEVENTS_TIMEOUT', (ms) => (config.deadlineMs = ms), 100],
  ];
  for (const [name, set, min] of durations) {
    const v = value(name);
    if (v === undefined) continue;
    const ms = parseDurationMs(v);
    if (ms === undefined || ms < min) problems.push(`${name}=${JSON.stringify(v)}: expected a duration such as 500ms, 30s or 1m, at least ${min} ms`);
    else set(ms);
  }
  const attempts = value('FLOTILLA_CDEVENTS_MAX_ATTEMPTS');
  if (attempts !== undefined) {
    if (!/^\d+$/.test(attempts) || Number(attempts) < 1 || Number(attempts) > 1000) problems.push(`FLOTILLA_CDEVENTS_MAX_ATTEMPTS=${JSON.stringify(attempts)}: expected an integer from 1 to 1000`);
    else config.backoff.maxAttempts = Number(attempts);
  }
  const mode = value('FLOTILLA_CDEVENTS_MODE');
  if (mode !== undefined) {
    if (mode === 'binary' || mode === 'structured') config.mode = mode;
    else problems.push(`FLOTILLA_CDEVENTS_MODE=${JSON.stringify(mode)}: expected binary or structured`);
  }
  const delivery = value('FLOTILLA_CDEVENTS_DELIVERY');
  if (delivery !== undefined) {
    if (delivery === 'on' || delivery === 'off') config.delivery = delivery === 'on';
    else problems.push(`FLOTILLA_CDEVENTS_DELIVERY=${JSON.stringify(delivery)}: expected on or off`);
  }
  return config;
}
