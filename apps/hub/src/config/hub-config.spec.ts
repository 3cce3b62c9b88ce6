import { HubConfigError, parseHubConfig } from './hub-config';

describe('parseHubConfig', () => {
  it('defaults to port 8080 on all interfaces with the embedded database under ./.flotilla', () => {
    const c = parseHubConfig({}, '/srv/hub');
    expect(c).toEqual({ port: 8080, host: '0.0.0.0', dataDir: '/srv/hub/.flotilla', logLevel: 'info' });
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
    });
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
