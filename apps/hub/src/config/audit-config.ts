import { parseDurationMs } from '../common/duration';

/** The audit log's settings. */
export interface AuditConfig {
  /** How long entries are kept (FLOTILLA_AUDIT_RETENTION, default 90d; days, or h/m/s, at least 1h). */
  retentionMs: number;
  /** How often this replica purges older entries (FLOTILLA_AUDIT_PURGE_INTERVAL, default 1h; 0s: never, tests purge by hand). */
  purgeIntervalMs: number;
}

const DAY_MS = 86_400_000;
const MIN_RETENTION_MS = 3_600_000;

export function defaultAuditConfig(): AuditConfig {
  return { retentionMs: 90 * DAY_MS, purgeIntervalMs: 3_600_000 };
}

/** `90d`, `36h`, `1h30m`: whole days, or a duration of h/m/s. Parsed without a regular expression over the day count. */
export function parseRetention(text: string): number | undefined {
  if (text.endsWith('d')) {
    const days = text.slice(0, -1);
    if (days.length === 0 || days.length > 5 || ![...days].every((c) => c >= '0' && c <= '9')) return undefined;
    return Number(days) * DAY_MS;
  }
  return parseDurationMs(text);
}

/** Reads FLOTILLA_AUDIT_*, adding every problem to `problems`. */
export function parseAuditConfig(value: (name: string) => string | undefined, problems: string[]): AuditConfig {
  const config = defaultAuditConfig();
  const retention = value('FLOTILLA_AUDIT_RETENTION');
  if (retention !== undefined) {
    const ms = parseRetention(retention);
    if (ms === undefined || ms < MIN_RETENTION_MS) problems.push(`FLOTILLA_AUDIT_RETENTION=${JSON.stringify(retention)}: expected a duration such as 90d, 365d or 720h, at least 1h`);
    else config.retentionMs = ms;
  }
  const interval = value('FLOTILLA_AUDIT_PURGE_INTERVAL');
  if (interval !== undefined) {
    const ms = parseDurationMs(interval);
    if (ms === undefined || (ms !== 0 && ms < 60_000)) problems.push(`FLOTILLA_AUDIT_PURGE_INTERVAL=${JSON.stringify(interval)}: expected a duration such as 1h or 10m (at least 1m), or 0s for never`);
    else config.purgeIntervalMs = ms;
  }
  return config;
}
