import { parseMemorySize } from '@flotilla/cue';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { defaultAuditConfig } from './audit-config';
import { defaultEgressConfig } from './egress-config';
import { defaultCdeventsConfig } from './cdevents-config';
import { defaultAgentServerConfig, defaultAuthConfig, defaultSchedulerConfig, HubConfigError, parseHubConfig } from './hub-config';

const MiB = 1048576;
/** A machine without a memory limit: the CUE pool keeps its unlimited defaults. */
const unlimited = { memoryLimitBytes: null, cpus: 2 };
const unlimitedCue = { poolSize: 2, memoryLimitBytes: 1024 * MiB, workerHeapMb: 512, recycleAboveBytes: 512 * MiB };

describe('parseHubConfig', () => {
  it('defaults to port 8080 on all interfaces with the embedded database under ./.flotilla', () => {
    const c = parseHubConfig({}, '/srv/hub', unlimited);
    expect(c).toEqual({ port: 8080, host: '0.0.0.0', dataDir: '/srv/hub/.flotilla', logLevel: 'info', scheduler: { ...defaultSchedulerConfig(), hubId: c.scheduler.hubId }, cdevents: defaultCdeventsConfig(), agents: defaultAgentServerConfig(), cue: unlimitedCue, auth: defaultAuthConfig(), egress: defaultEgressConfig(), audit: defaultAuditConfig() });
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
      unlimited,
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
      cue: unlimitedCue,
      auth: defaultAuthConfig(),
      egress: defaultEgressConfig(),
      audit: defaultAuditConfig(),
    });
  });

  it('sizes the CUE pool from the container\'s memory limit, beside the hub\'s reserve', () => {
    const chart = { memoryLimitBytes: 1024 * MiB, cpus: 2 };
    const c = parseHubConfig({}, '/srv/hub', chart);
    expect(c.cue.poolSize).toBe(2);
    // every worker at its cap, heap and overhead, plus the reserve: within the limit
    expect(c.cue.poolSize * (c.cue.memoryLimitBytes + c.cue.workerHeapMb * MiB + 48 * MiB) + 384 * MiB).toBeLessThanOrEqual(1024 * MiB);
    // the operator can take fewer workers (each then gets more) or keep more for the hub
    const one = parseHubConfig({ FLOTILLA_CUE_POOL_SIZE: '1' }, '/srv/hub', chart).cue;
    expect(one.poolSize).toBe(1);
    expect(one.memoryLimitBytes).toBeGreaterThan(c.cue.memoryLimitBytes);
    expect(parseHubConfig({ FLOTILLA_CUE_MEMORY_RESERVE: '512Mi' }, '/srv/hub', chart).cue.memoryLimitBytes).toBeLessThan(c.cue.memoryLimitBytes);
  });

  it('reads the agent streams\' message rates', () => {
    const c = parseHubConfig({ FLOTILLA_AGENT_REPORT_RATE: '5', FLOTILLA_AGENT_REPORT_BURST: '20', FLOTILLA_AGENT_EVENT_RATE: '7' }, '/srv/hub', unlimited);
    expect(c.agents.streamRates).toEqual({ reports: { perSecond: 5, burst: 20 }, events: { perSecond: 7, burst: 1000 }, other: { perSecond: 100, burst: 2000 } });
    // the defaults are the protocol's, and a parsed config does not change them
    expect(defaultAgentServerConfig().streamRates.reports).toEqual({ perSecond: 50, burst: 1000 });
    expect(() => parseHubConfig({ FLOTILLA_AGENT_EVENT_BURST: '0' }, '/srv/hub', unlimited)).toThrow(/FLOTILLA_AGENT_EVENT_BURST="0": expected an integer from 1 to 100000 \(messages at once on one agent stream\)/);
  });

  it('starts within the chart\'s memory limit, as the chart ships it', () => {
    const values = parse(readFileSync(join(__dirname, '../../../../deploy/charts/flotilla-hub/values.yaml'), 'utf8')) as { resources: { limits: { memory: string } } };
    const limit = parseMemorySize(values.resources.limits.memory);
    expect(limit).toBe(1024 * MiB);
    for (const cpus of [1, 2, 8]) {
      const { cue } = parseHubConfig({}, '/srv/hub', { memoryLimitBytes: limit!, cpus });
      expect(cue.poolSize * (cue.memoryLimitBytes + cue.workerHeapMb * MiB + 48 * MiB) + 384 * MiB).toBeLessThanOrEqual(limit!);
    }
  });

  it('refuses CUE settings that do not fit the container, naming them', () => {
    const small = { memoryLimitBytes: 512 * MiB, cpus: 2 };
    expect(() => parseHubConfig({}, '/srv/hub', small)).toThrow(/the CUE pool does not fit the container \(FLOTILLA_CUE_MEMORY_RESERVE, FLOTILLA_CUE_POOL_SIZE\): the memory limit of 512 MiB leaves 128 MiB/);
    expect(() => parseHubConfig({ FLOTILLA_CUE_POOL_SIZE: '65' }, '/srv/hub', unlimited)).toThrow(/FLOTILLA_CUE_POOL_SIZE="65": expected an integer from 1 to 64/);
    expect(() => parseHubConfig({ FLOTILLA_CUE_MEMORY_RESERVE: '1GB' }, '/srv/hub', unlimited)).toThrow(/FLOTILLA_CUE_MEMORY_RESERVE="1GB": expected a size such as 384Mi or 1Gi/);
  });

  it('reads the token settings: maximum lifetime, metrics token, failure limit', () => {
    const c = parseHubConfig({ FLOTILLA_TOKEN_MAX_LIFETIME: '720h', FLOTILLA_METRICS_TOKEN: 'scrape-0123456789abcdef', FLOTILLA_AUTH_FAILURE_LIMIT: '0', FLOTILLA_AUTH_FAILURE_WINDOW: '5m' }, '/srv/hub', unlimited);
    expect(c.auth).toEqual({ tokenMaxLifetimeMs: 720 * 3600_000, metricsToken: 'scrape-0123456789abcdef', failureLimit: 0, failureWindowMs: 300_000 });
    expect(defaultAuthConfig()).toEqual({ failureLimit: 10, failureWindowMs: 60_000 });
    expect(() => parseHubConfig({ FLOTILLA_TOKEN_MAX_LIFETIME: '30s', FLOTILLA_METRICS_TOKEN: 'short', FLOTILLA_AUTH_FAILURE_LIMIT: '-1', FLOTILLA_AUTH_FAILURE_WINDOW: 'soon' }, '/srv/hub', unlimited)).toThrow(
      expect.objectContaining({
        problems: [
          expect.stringMatching(/^FLOTILLA_TOKEN_MAX_LIFETIME="30s": .*at least 1m/),
          'FLOTILLA_METRICS_TOKEN: must be at least 16 characters',
          expect.stringMatching(/^FLOTILLA_AUTH_FAILURE_LIMIT="-1"/),
          expect.stringMatching(/^FLOTILLA_AUTH_FAILURE_WINDOW="soon"/),
        ],
      }),
    );
  });

  it('reads the scheduler settings', () => {
    const c = parseHubConfig({
      FLOTILLA_SCHEDULER: 'off',
      FLOTILLA_SCHEDULER_TICK: '250ms',
      FLOTILLA_LEASE_TTL: '10s',
      FLOTILLA_SOURCE_POLL_INTERVAL: '5m',
      FLOTILLA_CLUSTER_CHECK_INTERVAL: '30s',
      FLOTILLA_HEALTH_RECHECK_INTERVAL: '5s',
      FLOTILLA_SHUTDOWN_GRACE: '0s',
      FLOTILLA_SCHEDULER_CONCURRENCY: '32',
      FLOTILLA_HUB_ID: 'hub-a',
    });
    expect(c.scheduler).toEqual({ ...defaultSchedulerConfig(), enabled: false, tickMs: 250, leaseTtlMs: 10_000, sourcePollMs: 300_000, clusterCheckMs: 30_000, healthRecheckMs: 5_000, shutdownGraceMs: 0, concurrency: 32, hubId: 'hub-a' });
    expect(defaultSchedulerConfig().healthRecheckMs).toBe(30_000);
  });

  it('lists every bad scheduler setting', () => {
    expect(() => parseHubConfig({ FLOTILLA_SCHEDULER: 'maybe', FLOTILLA_LEASE_TTL: '10ms', FLOTILLA_HEALTH_RECHECK_INTERVAL: '100ms', FLOTILLA_SCHEDULER_CONCURRENCY: '0', FLOTILLA_HUB_ID: 'a b' })).toThrow(
      expect.objectContaining({ problems: [expect.stringMatching(/^FLOTILLA_SCHEDULER=/), expect.stringMatching(/^FLOTILLA_LEASE_TTL=/), expect.stringMatching(/^FLOTILLA_HEALTH_RECHECK_INTERVAL=/), expect.stringMatching(/^FLOTILLA_SCHEDULER_CONCURRENCY=/), expect.stringMatching(/^FLOTILLA_HUB_ID=/)] }),
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

  it('reads the agent image and auto-upgrade: the image of the hub\'s release by default, any tagged or pinned reference, nothing else', () => {
    const version = (JSON.parse(readFileSync(join(__dirname, '../../../../package.json'), 'utf8')) as { version: string }).version;
    expect(parseHubConfig({}).agents).toMatchObject({ image: `ghcr.io/flotilla-dev/flotilla-agent:${version}`, autoUpgrade: false });
    const pinned = `registry.example:5000/platform/agent:0.2.0@sha256:${'a'.repeat(64)}`;
    expect(parseHubConfig({ FLOTILLA_AGENT_IMAGE: pinned, FLOTILLA_AGENT_AUTO_UPGRADE: 'on' }).agents).toMatchObject({ image: pinned, autoUpgrade: true });
    expect(() => parseHubConfig({ FLOTILLA_AGENT_IMAGE: 'registry.example/agent', FLOTILLA_AGENT_AUTO_UPGRADE: 'sometimes' })).toThrow(
      expect.objectContaining({ problems: [expect.stringMatching(/^FLOTILLA_AGENT_IMAGE="registry.example\/agent": expected a tag or a digest/), expect.stringMatching(/^FLOTILLA_AGENT_AUTO_UPGRADE="sometimes": expected on or off/)] }),
    );
    for (const bad of ['Registry.example/Agent:1', 'oci://registry.example/agent:1', `registry.example/${'a'.repeat(600)}:1`, 'registry.example/agent:bad tag']) {
      expect(() => parseHubConfig({ FLOTILLA_AGENT_IMAGE: bad })).toThrow(expect.objectContaining({ problems: [expect.stringMatching(/^FLOTILLA_AGENT_IMAGE=/)] }));
    }
  });

  it("reads the page's public address, and names it when it is none", () => {
    expect(parseHubConfig({ FLOTILLA_PUBLIC_URL: 'https://flotilla.example.com/' }, '/x', unlimited).publicUrl).toBe('https://flotilla.example.com');
    expect(parseHubConfig({}, '/x', unlimited).publicUrl).toBeUndefined();
    expect(() => parseHubConfig({ FLOTILLA_PUBLIC_URL: 'https://u:p@flotilla.example.com' }, '/x', unlimited)).toThrow(/FLOTILLA_PUBLIC_URL="https:\/\/u:p@flotilla.example.com": expected the status page's http\(s\) address/);
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
