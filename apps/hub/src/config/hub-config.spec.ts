import { defaultEgressConfig } from './egress-config';
import { defaultCdeventsConfig } from './cdevents-config';
import { defaultAgentServerConfig, defaultSchedulerConfig, HubConfigError, parseHubConfig } from './hub-config';

describe('parseHubConfig', () => {
  it('defaults to port 8080 on all interfaces with the embedded database under ./.flotilla', () => {
    const c = parseHubConfig({}, '/srv/hub');
    expect(c).toEqual({ port: 8080, host: '0.0.0.0', dataDir: '/srv/hub/.flotilla', logLevel: 'info', scheduler: { ...defaultSchedulerConfig(), hubId: c.scheduler.hubId }, cdevents: defaultCdeventsConfig(), agents: defaultAgentServerConfig(), egress: defaultEgressConfig() });
    expect(c.scheduler).toMatchObject({ enabled: true, tickMs: 2000, leaseTtlMs: 30_000, concurrency: 32, sourcePollMs: 60_000, clusterCheckMs: 60_000 });
    expect(c.scheduler.hubId).toMatch(/^.+-\d+-[0-9a-f]{6}$/);
    expect(c.databaseUrl).toBeUndefined();
  });

  it('reads every variable', () => {
    const c = parseHubConfig(
      {
        PORT: '9090',
        HOST: '127.0.0.1',
        FLOTILLA_DATA_DIR: 'state',
        DATABASE_URL: 'postgres://u:p@db:5432/hub',
        FLOTILLA_ADMIN_TOKEN: 'a-long-enough-admin-token',
        LOG_LEVEL: 'debug',
        FLOTILLA_ENCRYPTION_KEY_FILE: 'keys',
      },
      '/srv/hub',
    );
    expect(c).toEqual({
      port: 9090,
      host: '127.0.0.1',
      dataDir: '/srv/hub/state',
      databaseUrl: 'postgres://u:p@db:5432/hub',
      adminToken: 'a-long-enough-admin-token',
      logLevel: 'debug',
      encryptionKeyFile: '/srv/hub/keys',
      scheduler: c.scheduler,
      cdevents: defaultCdeventsConfig(),
      // the agents' server binds where HOST says unless told otherwise
      agents: { ...defaultAgentServerConfig(), host: '127.0.0.1' },
      egress: defaultEgressConfig(),
    });
  });

  it('reads the scheduler settings', () => {
    const c = parseHubConfig({
      FLOTILLA_SCHEDULER: 'off',
      FLOTILLA_SCHEDULER_TICK: '250ms',
      FLOTILLA_LEASE_TTL: '10s',
      FLOTILLA_SOURCE_POLL_INTERVAL: '5m',
      FLOTILLA_CLUSTER_CHECK_INTERVAL: '30s',
      FLOTILLA_SHUTDOWN_GRACE: '0s',
      FLOTILLA_SCHEDULER_CONCURRENCY: '32',
      FLOTILLA_HUB_ID: 'hub-a',
    });
    expect(c.scheduler).toEqual({ ...defaultSchedulerConfig(), enabled: false, tickMs: 250, leaseTtlMs: 10_000, sourcePollMs: 300_000, clusterCheckMs: 30_000, shutdownGraceMs: 0, concurrency: 32, hubId: 'hub-a' });
  });

  it('lists every bad scheduler setting', () => {
    expect(() => parseHubConfig({ FLOTILLA_SCHEDULER: 'maybe', FLOTILLA_LEASE_TTL: '10ms', FLOTILLA_SCHEDULER_CONCURRENCY: '0', FLOTILLA_HUB_ID: 'a b' })).toThrow(
      expect.objectContaining({ problems: [expect.stringMatching(/^FLOTILLA_SCHEDULER=/), expect.stringMatching(/^FLOTILLA_LEASE_TTL=/), expect.stringMatching(/^FLOTILLA_SCHEDULER_CONCURRENCY=/), expect.stringMatching(/^FLOTILLA_HUB_ID=/)] }),
    );
  });

  it('reads the agent certificate settings: lifetime, and the operator\'s CA as both files or neither', () => {
    const c = parseHubConfig({ FLOTILLA_AGENT_CERT_TTL: '168h', FLOTILLA_AGENT_CA_CERT_FILE: 'ca.crt', FLOTILLA_AGENT_CA_KEY_FILE: '/etc/ca.key' }, '/srv/hub');
    expect(c.agents).toMatchObject({ certTtlMs: 7 * 24 * 3600_000, caCertFile: '/srv/hub/ca.crt', caKeyFile: '/etc/ca.key' });
    expect(defaultAgentServerConfig().certTtlMs).toBe(30 * 24 * 3600_000);
    expect(() => parseHubConfig({ FLOTILLA_AGENT_CA_CERT_FILE: 'ca.crt', FLOTILLA_AGENT_CERT_TTL: '1s' })).toThrow(
      expect.objectContaining({ problems: [expect.stringMatching(/^FLOTILLA_AGENT_CERT_TTL="1s": .*at least 10000 ms/), expect.stringMatching(/^FLOTILLA_AGENT_CA_CERT_FILE and FLOTILLA_AGENT_CA_KEY_FILE: set both/)] }),
    );
  });

  it('treats empty values as unset', () => {
    expect(parseHubConfig({ PORT: '', DATABASE_URL: ' ' }, '/x').port).toBe(8080);
  });

  it('lists every bad value at once and never echoes the database password', () => {
    let err: unknown;
    try {
      parseHubConfig({ PORT: '80a', DATABASE_URL: 'mysql://u:secret@h/db', LOG_LEVEL: 'loud', FLOTILLA_ADMIN_TOKEN: 'short' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HubConfigError);
    const e = err as HubConfigError;
    expect(e.problems).toHaveLength(4);
    expect(e.message).toContain('PORT="80a"');
    expect(e.message).toContain('DATABASE_URL: scheme mysql:');
    expect(e.message).toContain('LOG_LEVEL="loud"');
    expect(e.message).toContain('FLOTILLA_ADMIN_TOKEN');
    expect(e.message).not.toContain('secret');
  });

  it('takes keys from the variable or a file, not both', () => {
    expect(parseHubConfig({ FLOTILLA_ENCRYPTION_KEYS: 'a:b' }).encryptionKeys).toBe('a:b');
    expect(() => parseHubConfig({ FLOTILLA_ENCRYPTION_KEYS: 'a:b', FLOTILLA_ENCRYPTION_KEY_FILE: '/k' })).toThrow(/set only one/);
  });

  it('rejects ports out of range and unparseable URLs', () => {
    expect(() => parseHubConfig({ PORT: '70000' })).toThrow(/PORT="70000"/);
    expect(() => parseHubConfig({ DATABASE_URL: 'not a url' })).toThrow(/DATABASE_URL: not a valid URL/);
  });
});
