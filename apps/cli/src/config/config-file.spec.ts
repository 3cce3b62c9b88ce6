import { readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { configPath, readConfig, writeConfig } from './config-file';
import { resolveContext } from './context';
import { testDir } from '../../../../test/harness/temp-dirs';

describe('contexts on disk', () => {
  const home = testDir('flotilla-config-');

  it('lives under XDG_CONFIG_HOME, else ~/.config', () => {
    expect(configPath({ XDG_CONFIG_HOME: '/x', HOME: '/h' })).toBe('/x/flotilla/config.yaml');
    expect(configPath({ HOME: '/h' })).toBe('/h/.config/flotilla/config.yaml');
  });

  it('is written 0600 in a 0700 directory, even over a file made world-readable', () => {
    const path = configPath({ XDG_CONFIG_HOME: join(home, 'xdg') });
    writeConfig(path, { currentContext: 'a', contexts: [{ name: 'a', server: 'http://h', token: 't0ken' }] });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'xdg', 'flotilla')).mode & 0o777).toBe(0o700);
    chmodSync(path, 0o644);
    writeConfig(path, readConfig(path));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toContain('current-context: a');
  });

  it('lets FLOTILLA_SERVER and FLOTILLA_TOKEN override the current context', () => {
    const env = { XDG_CONFIG_HOME: join(home, 'xdg') };
    expect(resolveContext(env)).toEqual({ name: 'a', server: 'http://h', token: 't0ken' });
    expect(resolveContext({ ...env, FLOTILLA_TOKEN: 'other' })).toEqual({ name: 'a', server: 'http://h', token: 'other' });
    expect(resolveContext({ ...env, FLOTILLA_SERVER: 'http://e/', FLOTILLA_TOKEN: 'e' })).toEqual({ name: 'FLOTILLA_SERVER', server: 'http://e', token: 'e' });
    expect(() => resolveContext({ XDG_CONFIG_HOME: join(home, 'none') })).toThrow('no hub context: nothing says which hub to talk to');
    expect(() => resolveContext(env, 'b')).toThrow(/context "b" not found/);
  });

  it('keeps what renews a single sign-on token, and hands the context a renewal only when no variable overrides it', () => {
    const xdg = join(home, 'xdg-sso');
    const path = configPath({ XDG_CONFIG_HOME: xdg });
    const oidc = { issuer: 'https://idp.example', clientId: 'flotilla', refreshToken: 'r3fresh', expiresAt: 1_900_000_000 };
    writeConfig(path, { currentContext: 'sso', contexts: [{ name: 'sso', server: 'http://h', token: 'acc3ss', oidc }] });
    expect(readConfig(path).contexts[0]).toEqual({ name: 'sso', server: 'http://h', token: 'acc3ss', oidc });
    expect(readFileSync(path, 'utf8')).toContain('refresh-token: r3fresh');
    const connection = resolveContext({ XDG_CONFIG_HOME: xdg });
    expect(connection.oidc?.expiresAt).toBe(1_900_000_000);
    expect(typeof connection.oidc?.renew).toBe('function');
    expect(resolveContext({ XDG_CONFIG_HOME: xdg, FLOTILLA_TOKEN: 'static' }).oidc).toBeUndefined();
  });

  it('refuses a file that is not what it wrote, naming it', () => {
    const path = join(home, 'bad.yaml');
    writeFileSync(path, 'contexts:\n  - name: a\n');
    expect(() => readConfig(path)).toThrow(`${path}: every context needs a name, server and token`);
  });
});
