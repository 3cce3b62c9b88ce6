import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createTempDataDir } from '../test/databases';

// `npm start` runs the compiled entry point; this drives that very file.
const mainJs = join(__dirname, '../../../dist/apps/hub/src/main.js');

function startMain(env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  if (!existsSync(mainJs)) throw new Error(`${mainJs} is missing: run \`npm run build\` first (npm test does)`);
  let output = '';
  const child = spawn(process.execPath, [mainJs], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitForUrl(output: () => string, exited: Promise<number | null>, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let done = false;
  void exited.then(() => (done = true));
  while (Date.now() < deadline && !done) {
    const m = /listening on (http:\/\/\S+)/.exec(output());
    if (m) return m[1];
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`hub did not print its URL; output:\n${output()}`);
}

describe('compiled hub (npm start)', () => {
  it('starts on the embedded database, prints its URL and answers /readyz', async () => {
    const tmp = createTempDataDir();
    const hub = startMain({ PORT: '0', FLOTILLA_AGENT_PORT: '0', HOST: '127.0.0.1', FLOTILLA_DATA_DIR: tmp.dir });
    try {
      const url = await waitForUrl(hub.output, hub.exited, 30000);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      // no terminal here: the first admin token is in a file only the hub's user may read, and nowhere in the output
      const tokenFile = join(tmp.dir, 'admin-token');
      expect(hub.output()).toContain(`first admin token written to ${tokenFile} (readable by this user only)`);
      expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
      const token = readFileSync(tokenFile, 'utf8').trim();
      expect(token).toMatch(/^flt_/);
      const tokens = await fetch(`${url}/api/v1/tokens`, { headers: { authorization: `Bearer ${token}` } });
      expect(tokens.status).toBe(200);
      expect(hub.output()).not.toContain(token);
      const lines = hub.output().split('\n').filter((l) => l.startsWith('{'));
      expect(lines.length).toBeGreaterThan(0);
      // times are ISO 8601 in UTC, not epoch milliseconds
      for (const l of lines) expect((JSON.parse(l) as { time: unknown }).time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const res = await fetch(`${url}/readyz`);
      expect(res.status).toBe(200);
      // the compiled hub serves the contract the API tests hold it to
      const doc = (await (await fetch(`${url}/api/docs-json`)).json()) as { openapi: string; components: { schemas: Record<string, { oneOf?: unknown[] }> } };
      expect(doc.openapi).toBe('3.1.0');
      expect(doc.components.schemas.ClusterCredentialsDto.oneOf).toHaveLength(3);
      expect(existsSync(join(tmp.dir, 'pgdata', 'PG_VERSION'))).toBe(true);
      // a second hub on the same embedded database is refused, naming the first
      const second = startMain({ PORT: '0', FLOTILLA_AGENT_PORT: '0', HOST: '127.0.0.1', FLOTILLA_DATA_DIR: tmp.dir });
      expect(await second.exited).toBe(1);
      expect(second.output()).toContain(`in use by process ${hub.child.pid}`);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
    } finally {
      hub.child.kill('SIGTERM');
      // a graceful stop ends with status 0 (not by the re-raised signal, which PID 1 in a container ignores)
      expect(await hub.exited).toBe(0);
      expect(hub.output()).toContain('flotilla hub stopping (SIGTERM)');
      // a clean stop releases the data dir
      expect(existsSync(join(tmp.dir, 'pgdata.lock'))).toBe(false);
      tmp.cleanup();
    }
  });

  it('exits with status 1 naming every bad setting', async () => {
    const hub = startMain({ PORT: 'eighty', LOG_LEVEL: 'loud' });
    expect(await hub.exited).toBe(1);
    expect(hub.output()).toContain('PORT="eighty"');
    expect(hub.output()).toContain('LOG_LEVEL="loud"');
  });
});
