// Builds the real Helm CLI from its Go module (helm.sh/helm/v3, pinned by the
// `tool` line of go.mod), once per version key, into
// ${FLOTILLA_CACHE_DIR:-~/.cache/flotilla}; later runs reuse the cache. Writes
// .binaries.json beside this file so the chart tests find it. HELM_BIN points
// at a prebuilt binary instead.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const here = import.meta.dirname;
const started = Date.now();
const log = (msg) => console.log(`helm build: ${msg}`);

const goMod = readFileSync(join(here, 'go.mod'), 'utf8');
const helmVersion = goMod.match(/^\s*helm\.sh\/helm\/v3 (v\S+)/m)?.[1];
if (!helmVersion) throw new Error(`${join(here, 'go.mod')}: no version pinned for helm.sh/helm/v3`);
// `helm version` must report the pinned release, not the bare "v3.22" default.
const ldflags = ['-s', '-w', `-X helm.sh/helm/v3/internal/version.version=${helmVersion}`, '-X helm.sh/helm/v3/internal/version.gitTreeState=clean'];

function goVersion() {
  const res = spawnSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`helm build: \`go env GOVERSION\` failed (is Go installed?): ${res.stderr}`);
  return res.stdout.trim();
}

function inputsHash() {
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum']) hash.update(file).update('\0').update(readFileSync(join(here, file))).update('\0');
  return hash.update(ldflags.join(' ')).digest('hex').slice(0, 12);
}

function build(outDir) {
  const env = { ...process.env, GOFLAGS: `${process.env.GOFLAGS ?? ''} -mod=mod`.trim(), GOMAXPROCS: '2', CGO_ENABLED: '0', GOTOOLCHAIN: 'local' };
  const args = ['-n', '10', 'go', 'build', '-p', '2', '-trimpath', '-ldflags', ldflags.join(' '), '-o', join(outDir, 'helm'), 'helm.sh/helm/v3/cmd/helm'];
  log(`go build helm.sh/helm/v3/cmd/helm@${helmVersion} (nice -n 10, -p 2; a cold build takes a few minutes on 2 cores)`);
  const res = spawnSync('nice', args, { cwd: here, env, stdio: 'inherit' });
  if (res.status !== 0) throw new Error(`helm build: go build failed with exit code ${res.status}`);
  log(`built helm in ${((Date.now() - started) / 1000).toFixed(1)}s (${(statSync(join(outDir, 'helm')).size / 1e6).toFixed(1)} MB)`);
}

function main() {
  let helm = process.env.HELM_BIN;
  if (helm) {
    log(`HELM_BIN=${helm} (not built)`);
  } else {
    const cacheRoot = process.env.FLOTILLA_CACHE_DIR || join(homedir(), '.cache', 'flotilla');
    const dir = join(cacheRoot, `helm-${helmVersion}-${goVersion()}-${inputsHash()}`);
    helm = join(dir, 'helm');
    if (!existsSync(helm)) {
      mkdirSync(cacheRoot, { recursive: true });
      const tmp = mkdtempSync(join(cacheRoot, '.helm-tmp-'));
      try {
        build(tmp);
        try {
          renameSync(tmp, dir);
        } catch (err) {
          // Another build finished first: keep its result.
          if (!existsSync(helm)) throw err;
        }
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    }
    log(`cached in ${dir}`);
  }
  writeFileSync(join(here, '.binaries.json'), `${JSON.stringify({ helm, helmVersion }, null, 2)}\n`);
  log(`done in ${Date.now() - started} ms`);
}

main();
