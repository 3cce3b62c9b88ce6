import { spawn, spawnSync } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CLI_MAIN, collect, CliUser, expectNoStack, waitForOutput } from '../test/run-cli';

// Issue 17, the shape of the `flotilla` executable: the compiled bin, help
// with examples everywhere, exit codes 0/1/2, contexts without a hub, shell
// completion. No services needed (the hub suites cover the rest).

describe('flotilla: the executable', () => {
  const user = new CliUser();

  it('is the package bin, compiled, and runs with npx from the clone', async () => {
    const pkg = JSON.parse(readFileSync(resolve(__dirname, '../../../package.json'), 'utf8')) as { bin: Record<string, string>; version: string };
    expect(pkg.bin).toEqual({ flotilla: 'dist/cli/flotilla.js' });
    const bin = resolve(__dirname, '../../..', pkg.bin.flotilla);
    expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(statSync(bin).mode & 0o111).not.toBe(0);
    const npx = spawnSync('npx', ['--offline', 'flotilla', '--version'], { cwd: resolve(__dirname, '../../..'), encoding: 'utf8', timeout: 60_000 });
    expect(npx.stdout.trim()).toBe(pkg.version);
  });

  it('keeps a V8 code cache of the bundle per user, and replaces one it cannot use', async () => {
    const fresh = new CliUser();
    const cacheDir = join(fresh.home, '.cache', 'flotilla', 'cli');
    expect(existsSync(cacheDir)).toBe(false);
    expect((await fresh.ok(['--version'])).trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const [file] = readdirSync(cacheDir);
    expect(file).toMatch(new RegExp(`^${process.version.replace(/\./g, '\\.')}-\\d+-\\d+-\\d+\\.v8$`));
    expect(statSync(join(cacheDir, file)).size).toBeGreaterThan(10_000);
    // Garbage where the cache was (a crash mid-write on another tool, a disk fault): V8 rejects it, the command runs, a good cache replaces it.
    writeFileSync(join(cacheDir, file), 'not a code cache');
    expect(await fresh.ok(['project', 'build', '--help'])).toContain('Examples:');
    expect(statSync(join(cacheDir, file)).size).toBeGreaterThan(10_000);
    expect(readdirSync(cacheDir)).toEqual([file]);
  });

  it('shows help with examples on every command, exit 0', async () => {
    const root = await user.ok(['--help']);
    for (const c of ['login', 'context', 'cluster', 'project', 'artifact', 'completion']) expect(root).toContain(c);
    const leaves = [
      ['login'], ['context', 'use'], ['context', 'list'], ['context', 'current'], ['context', 'delete'],
      ['cluster', 'register'], ['cluster', 'list'], ['cluster', 'get'], ['cluster', 'update'], ['cluster', 'delete'], ['cluster', 'check'], ['cluster', 'install-agent'], ['cluster', 'upgrade-agent'],
      ['project', 'create'], ['project', 'apply'], ['project', 'list'], ['project', 'status'], ['project', 'events'], ['project', 'history'],
      ['project', 'reconcile'], ['project', 'suspend'], ['project', 'resume'], ['project', 'delete'], ['project', 'vet'], ['project', 'build'],
      ['artifact', 'push'], ['artifact', 'tag'], ['artifact', 'list'], ['completion'],
    ];
    for (const leaf of leaves) {
      const help = await user.ok([...leaf, '--help']);
      expect({ leaf: leaf.join(' '), examples: help.includes('Examples:\n  flotilla ') || help.includes('Examples:\n  source <(flotilla') }).toEqual({ leaf: leaf.join(' '), examples: true });
    }
  });

  it('exits 2 on usage errors and 1 on failures, with a message and no stack trace', async () => {
    const cases: Array<[string[], number, RegExp]> = [
      [['bogus'], 2, /unknown command 'bogus'/],
      [['cluster'], 2, /"cluster" needs a subcommand/],
      [['project', 'status'], 2, /missing required argument 'name'/],
      [['cluster', 'list', '--bogus'], 2, /unknown option '--bogus'/],
      [['cluster', 'list', '-o', 'xml'], 2, /unknown output format "xml"/],
      [['artifact', 'push', '.', 'ghcr.io/x', '--tag', 'v1'], 2, /not an oci:\/\/ URL/],
      [['cluster', 'list'], 1, /no hub context[\s\S]*flotilla login/],
      [['context', 'use', 'nope'], 1, /context "nope" not found/],
      [['project', 'vet', '/nonexistent'], 1, /\/nonexistent is not a directory/],
    ];
    for (const [args, code, message] of cases) {
      const r = await user.run(args);
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code, stderr: expect.stringMatching(message) });
      expectNoStack(r.stderr);
    }
    const slow = await user.run(['--request-timeout', 'soon', 'cluster', 'list'], { env: { FLOTILLA_SERVER: 'http://127.0.0.1:9', FLOTILLA_TOKEN: 'x' } });
    expect(slow).toMatchObject({ code: 2, stderr: expect.stringMatching(/--request-timeout "soon" is not a duration/) });
  });

  it('says when nothing listens at the hub URL, without showing the token', async () => {
    // Nothing listens on port 9 of loopback: connection refused, at once.
    const r = await user.run(['cluster', 'list'], { env: { FLOTILLA_SERVER: 'http://127.0.0.1:9', FLOTILLA_TOKEN: 'secret-token-value-123' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot reach the hub at http:\/\/127\.0\.0\.1:9/);
    expect(r.stderr).not.toContain('secret-token-value-123');
    expectNoStack(r.stderr);
  });

  it('keeps a token given as an argument out of the process title, and gives up on a silent hub at the deadline', async () => {
    // A hub that accepts the connection and never answers.
    const sockets: Socket[] = [];
    let connected!: () => void;
    const seen = new Promise<void>((r) => (connected = r));
    const server = createServer((s) => {
      sockets.push(s);
      connected();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as { port: number }).port;
      const child = user.spawn(['login', '--server', `http://127.0.0.1:${port}`, '--token', 'argv-token-0123456789', '--request-timeout', '2s']);
      const done = collect(child, 'login', 30_000);
      await seen;
      expect(readFileSync(`/proc/${child.pid}/cmdline`, 'utf8')).not.toContain('argv-token-0123456789');
      const r = await done;
      expect(r).toMatchObject({ code: 1, stderr: expect.stringMatching(/did not answer GET \/api\/v1\/clusters within 2s\ncheck that the hub is up, or raise --request-timeout/) });
      expect(r.stderr).not.toContain('argv-token-0123456789');
    } finally {
      for (const s of sockets) s.destroy();
      server.close();
    }
  });

  it('redraws --watch in place on a real pseudo-terminal, in colour unless NO_COLOR', async () => {
    // A stand-in for the two routes `project status` reads; the hub suite covers the real one off a terminal.
    const project = { name: 'tty', namespace: 'tty', source: { repository: 'oci://r/x', tag: 'latest' }, generation: 1, suspend: false, status: { targets: 0, ready: 0, phases: {}, deleting: false } };
    const server = createHttpServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(req.url?.startsWith('/api/v1/projects/tty/targets') ? { items: [], total: 0, limit: 500, offset: 0 } : project));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const env = { FLOTILLA_SERVER: `http://127.0.0.1:${(server.address() as { port: number }).port}`, FLOTILLA_TOKEN: 'tty-token-0123456789' };
    // eslint-disable-next-line no-control-regex -- the cursor-up and clear sequences are what is checked
    const redraw = /\x1b\[4A\x1b\[0J[^\n]*Project tty[\s\S]*no targets/;
    try {
      for (const noColor of [false, true]) {
        // `script` gives the CLI a pseudo-terminal, so it sees isTTY as a user's shell would.
        const child = spawn('script', ['-qfec', `${process.execPath} ${CLI_MAIN} project status tty --watch --interval 0.2`, '/dev/null'], { env: user.env(noColor ? { ...env, NO_COLOR: '1' } : env), stdio: ['pipe', 'pipe', 'pipe'] });
        const done = collect(child, 'watch in script', 30_000);
        const out = await waitForOutput(child, redraw, 20_000);
        child.kill('SIGTERM');
        await done;
        expect(out.includes('\x1b[1mProject tty\x1b[22m')).toBe(!noColor);
        expect(out).not.toContain('tty-token-0123456789');
      }
    } finally {
      server.close();
    }
  });

  it('prints completion scripts for bash, zsh and fish that follow the command tree', async () => {
    const bash = await user.ok(['completion', 'bash']);
    const script = join(user.home, 'flotilla.bash');
    writeFileSync(script, bash);
    const complete = (words: string[]) =>
      spawnSync('bash', ['-c', `source ${script}; COMP_WORDS=(${words.map((w) => `"${w}"`).join(' ')}); COMP_CWORD=${words.length - 1}; _flotilla; echo "\${COMPREPLY[@]}"`], { encoding: 'utf8' }).stdout.trim();
    expect(complete(['flotilla', '']).split(' ')).toEqual(expect.arrayContaining(['login', 'context', 'cluster', 'project', 'artifact', 'completion']));
    expect(complete(['flotilla', 'cluster', '']).split(' ')).toEqual(expect.arrayContaining(['register', 'list', 'get', 'update', 'delete', 'check']));
    expect(complete(['flotilla', 'project', 'status', 'shop', '--w'])).toBe('--watch');
    expect(complete(['flotilla', '--context', 'prod', 'cluster', 'register', 'x', '--kube'])).toBe('--kubeconfig --kube-context');
    expect(await user.ok(['completion', 'zsh'])).toMatch(/^#compdef flotilla\n[\s\S]*bashcompinit[\s\S]*complete -F _flotilla flotilla/);
    const fish = await user.ok(['completion', 'fish']);
    expect(fish).toContain("complete -c flotilla -n 'test \"$(__flotilla_path)\" = '\\''project status'\\''' -l watch -d");
    expect((await user.run(['completion', 'tcsh'])).code).toBe(2);
  });
});
