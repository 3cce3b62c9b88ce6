import { parseAuditConfig, parseRetention } from './audit-config';

describe('audit config', () => {
  const parse = (env: Record<string, string>) => {
    const problems: string[] = [];
    return { config: parseAuditConfig((n) => env[n], problems), problems };
  };

  it('keeps 90 days and purges hourly by default', () => {
    expect(parse({}).config).toEqual({ retentionMs: 90 * 86_400_000, purgeIntervalMs: 3_600_000 });
  });

  it('reads days or h/m/s', () => {
    expect(parseRetention('365d')).toBe(365 * 86_400_000);
    expect(parseRetention('36h')).toBe(36 * 3_600_000);
    expect(parse({ FLOTILLA_AUDIT_RETENTION: '7d', FLOTILLA_AUDIT_PURGE_INTERVAL: '0s' }).config).toEqual({ retentionMs: 7 * 86_400_000, purgeIntervalMs: 0 });
  });

  it('names a bad value', () => {
    expect(parse({ FLOTILLA_AUDIT_RETENTION: 'forever' }).problems).toEqual([expect.stringContaining('FLOTILLA_AUDIT_RETENTION="forever"')]);
    expect(parse({ FLOTILLA_AUDIT_RETENTION: '10m' }).problems).toEqual([expect.stringContaining('at least 1h')]);
    expect(parse({ FLOTILLA_AUDIT_RETENTION: 'd' }).problems).toHaveLength(1);
    expect(parse({ FLOTILLA_AUDIT_PURGE_INTERVAL: '5s' }).problems).toEqual([expect.stringContaining('FLOTILLA_AUDIT_PURGE_INTERVAL')]);
  });
});
