// Builds the real Timoni CLI, the release Flotilla matches (TIMONI_VERSION
// below), for the benchmarks that compare against it (`TIMONI_BIN`). The Go
// module proxy does not serve github.com/stefanprodan/timoni, so the source
// comes from TIMONI_SRC: a clone of the Timoni repository (the release tag is
// exported from it, and must be the commit pinned below) or a directory
// holding that release's tree. Its dependencies come from the proxy, checked
// against Timoni's own go.sum. Built once per version key into
// ${FLOTILLA_CACHE_DIR:-~/.cache/flotilla}/timoni-<version>-<go>-<hash>/;
// later runs reuse the cache. TIMONI_BIN names a prebuilt binary instead.
//
// Prints the binary's path as the last line of stdout (progress goes to
// stderr), and records it in .binaries.json beside this file, so
//   TIMONI_BIN=$(node test/timoni/build-timoni.mjs) npm run bench:fleet
// works once the cache holds it, without TIMONI_SRC.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

const TIMONI_VERSION = 'v0.33.0';
// the tag's commit in github.com/stefanprodan/timoni
const TIMONI_COMMIT = '74ab9cc2fbee3459505706f5fb7c2742ecffbf5d';

const here = import.meta.dirname;
const started = Date.now();
const log = (msg) => process.stderr.write(`timoni build: ${msg}\n`);
const ldflags = ['-s', '-w', `-X main.VERSION=${TIMONI_VERSION.slice(1)}`];

function run(cmd, args, opts = {}) {
  const res = spawnSync(cmd, args, { encoding: 'utf8', ...opts });
  if (res.status !== 0) throw new Error(`timoni build: \`${cmd} ${args.join(' ')}\` failed (${res.error?.message ?? `exit code ${res.status}`}): ${res.stderr ?? ''}`);
  return res.stdout;
}

const goVersion = () => run('go', ['env', 'GOVERSION']).trim();

/** Where the source comes from, and a key naming exactly that source. */
function source() {
  const src = process.env.TIMONI_SRC;
  if (!src) {
    throw new Error(
      `timoni build: no cached Timoni ${TIMONI_VERSION} and no TIMONI_SRC. The Go module proxy does not serve Timoni: ` +
        `set TIMONI_SRC to a clone of github.com/stefanprodan/timoni (tag ${TIMONI_VERSION}) or to that release's source tree, or TIMONI_BIN to a binary`,
    );
  }
  const dir = resolve(src);
  const git = spawnSync('git', ['--git-dir', existsSync(join(dir, '.git')) ? join(dir, '.git') : dir, 'rev-parse', `${TIMONI_VERSION}^{commit}`], { encoding: 'utf8' });
  if (git.status === 0) {
    const commit = git.stdout.trim();
    if (commit !== TIMONI_COMMIT) throw new Error(`timoni build: ${TIMONI_VERSION} in ${dir} is ${commit}, want ${TIMONI_COMMIT}`);
    return { kind: 'git', gitDir: existsSync(join(dir, '.git')) ? join(dir, '.git') : dir, key: commit.slice(0, 12) };
  }
  if (!existsSync(join(dir, 'cmd', 'timoni', 'main.go'))) throw new Error(`timoni build: TIMONI_SRC=${dir} is neither a git clone with tag ${TIMONI_VERSION} nor a Timoni source tree`);
  // A plain tree: the key is its content, so an edited tree builds anew.
  const hash = createHash('sha256');
  const walk = (rel) => {
    for (const entry of readdirSync(join(dir, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(rel, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== '.git') walk(path);
      } else if (entry.isFile()) {
        hash.update(path).update('\0').update(readFileSync(join(dir, path))).update('\0');
      }
    }
  };
  walk('');
  return { kind: 'dir', dir, key: hash.digest('hex').slice(0, 12) };
}

function cacheDir(key) {
  const cacheRoot = process.env.FLOTILLA_CACHE_DIR || join(homedir(), '.cache', 'flotilla');
  const flags = createHash('sha256').update(ldflags.join(' ')).digest('hex').slice(0, 6);
  return { cacheRoot, dir: join(cacheRoot, `timoni-${TIMONI_VERSION}-${goVersion()}-${key}-${flags}`) };
}

/** Timoni's go.mod asks for a newer Go than may be installed; its code builds with the local one. */
function lowerGoLine(tree) {
  const file = join(tree, 'go.mod');
  const local = goVersion().match(/^go(\d+\.\d+)/)?.[1];
  if (!local) throw new Error(`timoni build: cannot read the Go version from ${goVersion()}`);
  const text = readFileSync(file, 'utf8')
    .replace(/^go \S+$/m, `go ${local}`)
    .replace(/^toolchain \S+\n/m, '');
  writeFileSync(file, text);
}

function build(src, outDir) {
  const tree = join(outDir, 'src');
  mkdirSync(tree);
  if (src.kind === 'git') run('sh', ['-c', 'git --git-dir "$1" archive "$2" | tar -x -C "$3"', 'sh', src.gitDir, TIMONI_COMMIT, tree]);
  else cpSync(src.dir, tree, { recursive: true, filter: (p) => !p.endsWith('/.git') });
  lowerGoLine(tree);
  const env = { ...process.env, GOFLAGS: `${process.env.GOFLAGS ?? ''} -mod=mod`.trim(), GOMAXPROCS: '2', CGO_ENABLED: '0', GOTOOLCHAIN: 'local' };
  log(`go build ./cmd/timoni ${TIMONI_VERSION} (nice -n 15, -p 2; a cold build takes a few minutes on 2 cores)`);
  const res = spawnSync('nice', ['-n', '15', 'go', 'build', '-p', '2', '-trimpath', '-ldflags', ldflags.join(' '), '-o', join(outDir, 'timoni'), './cmd/timoni'], {
    cwd: tree,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (res.status !== 0) throw new Error(`timoni build: go build failed with exit code ${res.status}`);
  rmSync(tree, { recursive: true, force: true });
  log(`built timoni in ${((Date.now() - started) / 1000).toFixed(1)}s (${(statSync(join(outDir, 'timoni')).size / 1e6).toFixed(1)} MB)`);
}

/** The newest cached build of this version and Go, for runs without TIMONI_SRC. */
function cached() {
  const { cacheRoot } = cacheDir('');
  if (!existsSync(cacheRoot)) return undefined;
  const prefix = `timoni-${TIMONI_VERSION}-${goVersion()}-`;
  const dirs = readdirSync(cacheRoot)
    .filter((name) => name.startsWith(prefix) && existsSync(join(cacheRoot, name, 'timoni')))
    .map((name) => join(cacheRoot, name))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return dirs[0];
}

function main() {
  let timoni = process.env.TIMONI_BIN;
  if (timoni) {
    log(`TIMONI_BIN=${timoni} (not built)`);
  } else {
    let dir = process.env.TIMONI_SRC ? undefined : cached();
    if (!dir) {
      const src = source();
      const target = cacheDir(src.key);
      dir = target.dir;
      if (!existsSync(join(dir, 'timoni'))) {
        mkdirSync(target.cacheRoot, { recursive: true });
        const tmp = mkdtempSync(join(target.cacheRoot, '.timoni-tmp-'));
        try {
          build(src, tmp);
          try {
            renameSync(tmp, dir);
          } catch (err) {
            // Another build finished first: keep its result.
            if (!existsSync(join(dir, 'timoni'))) throw err;
          }
        } finally {
          rmSync(tmp, { recursive: true, force: true });
        }
      }
    }
    log(`cached in ${dir}`);
    timoni = join(dir, 'timoni');
  }
  const { client, cue } = JSON.parse(run(timoni, ['version', '-o', 'json'], { timeout: 30_000 }));
  if (`v${client}` !== TIMONI_VERSION) throw new Error(`timoni build: ${timoni} reports version ${client}, want ${TIMONI_VERSION}`);
  log(`timoni ${client} (CUE ${cue})`);
  writeFileSync(join(here, '.binaries.json'), `${JSON.stringify({ timoni, timoniVersion: TIMONI_VERSION }, null, 2)}\n`);
  log(`done in ${Date.now() - started} ms`);
  console.log(timoni);
}

main();
