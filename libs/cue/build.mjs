// Builds the CUE evaluator (go/, the official cuelang.org/go) to WebAssembly
// and, from the same sources, as a native helper for this host, once per
// (CUE version, Go version, Go sources, host) and caches both outside the
// repo. Writes .wasm-location.json (gitignored) so the runtime finds them.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';

const started = performance.now();
const here = import.meta.dirname;
const goDir = join(here, 'go');
const log = (msg) => console.log(`cue-wasm: ${msg}`);
const elapsed = () => `${Math.round(performance.now() - started)} ms`;

function go(args, env = {}) {
  const res = spawnSync('go', args, { cwd: goDir, encoding: 'utf8', env: { ...process.env, ...env } });
  if (res.error) throw new Error(`cue-wasm: cannot run go (${res.error.message}); install Go 1.24+`);
  if (res.status !== 0) throw new Error(`cue-wasm: go ${args.join(' ')} failed:\n${res.stderr}`);
  return res.stdout.trim();
}

const goVersion = go(['env', 'GOVERSION']);
const goMod = readFileSync(join(goDir, 'go.mod'), 'utf8');
const cueVersion = /cuelang\.org\/go (v\S+)/.exec(goMod)?.[1];
if (!cueVersion) throw new Error('cue-wasm: go/go.mod does not require cuelang.org/go');

// The key covers everything that changes the binary: sources, go.mod, go.sum, flags.
const ldflags = '-s -w';
const host = `${go(['env', 'GOOS'])}-${go(['env', 'GOARCH'])}`;
const hash = createHash('sha256').update(`flags:${ldflags}\ntargets:js-wasm,${host}\n`);
for (const name of readdirSync(goDir).sort()) {
  if (name.endsWith('.go') || name === 'go.mod' || name === 'go.sum') {
    hash.update(`${name}\n`).update(readFileSync(join(goDir, name)));
  }
}
const key = `cue-wasm-${cueVersion}-${goVersion}-${hash.digest('hex').slice(0, 12)}`;
const cacheRoot = process.env.FLOTILLA_CACHE_DIR || join(homedir(), '.cache', 'flotilla');
const dir = join(cacheRoot, key);

if (existsSync(join(dir, 'meta.json'))) {
  log(`cached ${dir} (${elapsed()})`);
} else {
  mkdirSync(cacheRoot, { recursive: true });
  const tmp = join(cacheRoot, `.tmp-${key}-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp);
  log(`building ${key} with ${goVersion} (takes a minute or two the first time)`);
  const t0 = performance.now();
  try {
    go(['build', '-trimpath', `-ldflags=${ldflags}`, '-o', join(tmp, 'cue.wasm'), '.'], {
      GOOS: 'js',
      GOARCH: 'wasm',
      CGO_ENABLED: '0',
    });
    // CGO off: the helper confines itself with a syscall on all threads,
    // which Go refuses when cgo is in use.
    go(['build', '-trimpath', `-ldflags=${ldflags}`, '-o', join(tmp, 'cue-native'), '.'], { CGO_ENABLED: '0' });
    const goroot = go(['env', 'GOROOT']);
    copyFileSync(join(goroot, 'lib', 'wasm', 'wasm_exec.js'), join(tmp, 'wasm_exec.js'));
    const buildMs = Math.round(performance.now() - t0);
    const size = statSync(join(tmp, 'cue.wasm')).size;
    const nativeSize = statSync(join(tmp, 'cue-native')).size;
    writeFileSync(join(tmp, 'meta.json'), JSON.stringify({ key, cueVersion, goVersion, host, ldflags, size, nativeSize, buildMs }, null, 2));
    try {
      renameSync(tmp, dir);
    } catch (err) {
      // Another build finished first: its result is equivalent.
      if (!existsSync(join(dir, 'meta.json'))) throw err;
      rmSync(tmp, { recursive: true, force: true });
    }
    log(`built ${dir}: cue.wasm ${(size / 1048576).toFixed(1)} MiB, cue-native ${(nativeSize / 1048576).toFixed(1)} MiB in ${buildMs} ms`);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

const pointer = join(here, '.wasm-location.json');
const content = JSON.stringify({ dir, key, cueVersion, goVersion }, null, 2) + '\n';
if (!existsSync(pointer) || readFileSync(pointer, 'utf8') !== content) writeFileSync(pointer, content);
log(`ready (${elapsed()})`);
