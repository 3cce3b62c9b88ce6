// Builds the real kube-apiserver and etcd from their Go modules, once per
// version key, into ${FLOTILLA_CACHE_DIR:-~/.cache/flotilla}; later runs reuse
// the cache. Writes .binaries.json beside this file so the harness finds them.
// KUBE_APISERVER_BIN / ETCD_BIN point at prebuilt binaries instead.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const here = import.meta.dirname;
const started = Date.now();
const log = (msg) => console.log(`kube-apiserver build: ${msg}`);

const goMod = readFileSync(join(here, 'go.mod'), 'utf8');
const pinned = (module) => {
  const m = goMod.match(new RegExp(`^\\s*${module.replaceAll('.', '\\.')} (v\\S+)`, 'm'));
  if (!m) throw new Error(`${join(here, 'go.mod')}: no version pinned for ${module}`);
  return m[1];
};
const kubeVersion = pinned('k8s.io/kubernetes');
const etcdVersion = pinned('go.etcd.io/etcd/server/v3');
const [, major, minor, patch] = kubeVersion.match(/^v(\d+)\.(\d+)\.(\d+)$/);

// Every staging module must be replaced by its published twin of the same release.
for (const [, module, version] of goMod.matchAll(/^\s*(k8s\.io\/\S+) => \S+ (v\S+)$/gm)) {
  if (version !== `v0.${minor}.${patch}`) {
    throw new Error(`${join(here, 'go.mod')}: ${module} is replaced by ${version}, want v0.${minor}.${patch} to match ${kubeVersion}`);
  }
}

// /version must report the pinned release, not v0.0.0.
const versionFlags = ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'].flatMap((pkg) => [
  `-X ${pkg}.gitVersion=${kubeVersion}`,
  `-X ${pkg}.gitMajor=${major}`,
  `-X ${pkg}.gitMinor=${minor}`,
  `-X ${pkg}.gitTreeState=clean`,
]);
const binaries = [
  { name: 'kube-apiserver', pkg: './cmd/kube-apiserver', ldflags: ['-s', '-w', ...versionFlags], env: 'KUBE_APISERVER_BIN' },
  { name: 'etcd', pkg: './cmd/etcd', ldflags: ['-s', '-w'], env: 'ETCD_BIN' },
];

function goVersion() {
  const res = spawnSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`kube-apiserver build: \`go env GOVERSION\` failed (is Go installed?): ${res.stderr}`);
  return res.stdout.trim();
}

function inputsHash() {
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum', 'cmd/kube-apiserver/main.go', 'cmd/etcd/main.go']) {
    hash.update(file).update('\0').update(readFileSync(join(here, file))).update('\0');
  }
  for (const b of binaries) hash.update(b.ldflags.join(' ')).update('\0');
  return hash.digest('hex').slice(0, 12);
}

/** The build date is the release's module time, so equal inputs give equal binaries. */
function buildDateFlags(env) {
  const res = spawnSync('go', ['list', '-m', '-json', 'k8s.io/kubernetes'], { cwd: here, env, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`kube-apiserver build: go list -m k8s.io/kubernetes failed: ${res.stderr}`);
  const time = JSON.parse(res.stdout).Time.replace(/\.\d+Z$/, 'Z');
  return ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'].map((pkg) => `-X ${pkg}.buildDate=${time}`);
}

function build(outDir) {
  const env = { ...process.env, GOFLAGS: `${process.env.GOFLAGS ?? ''} -mod=mod`.trim(), GOMAXPROCS: '2', CGO_ENABLED: '0' };
  const dateFlags = buildDateFlags(env);
  for (const b of binaries) {
    const t = Date.now();
    const ldflags = b.name === 'kube-apiserver' ? [...b.ldflags, ...dateFlags] : b.ldflags;
    const args = ['-n', '10', 'go', 'build', '-p', '2', '-trimpath', '-ldflags', ldflags.join(' '), '-o', join(outDir, b.name), b.pkg];
    log(`go build ${b.pkg} (nice -n 10, -p 2; a cold kube-apiserver build takes about 7 minutes on 2 cores)`);
    const res = spawnSync('nice', args, { cwd: here, env, stdio: 'inherit' });
    if (res.status !== 0) throw new Error(`kube-apiserver build: go build ${b.pkg} failed with exit code ${res.status}`);
    log(`built ${b.name} in ${((Date.now() - t) / 1000).toFixed(1)}s (${(statSync(join(outDir, b.name)).size / 1e6).toFixed(1)} MB)`);
  }
}

function main() {
  const fromEnv = Object.fromEntries(binaries.map((b) => [b.name, process.env[b.env]]));
  let paths = { ...fromEnv };
  if (binaries.some((b) => !fromEnv[b.name])) {
    const cacheRoot = process.env.FLOTILLA_CACHE_DIR || join(homedir(), '.cache', 'flotilla');
    const dir = join(cacheRoot, `kube-apiserver-${kubeVersion}-${goVersion()}-${inputsHash()}`);
    if (binaries.every((b) => existsSync(join(dir, b.name)))) {
      log(`cached in ${dir}`);
    } else {
      mkdirSync(cacheRoot, { recursive: true });
      const tmp = mkdtempSync(join(cacheRoot, '.kube-apiserver-tmp-'));
      try {
        build(tmp);
        try {
          renameSync(tmp, dir);
        } catch (err) {
          // Another build finished first: keep its result.
          if (!binaries.every((b) => existsSync(join(dir, b.name)))) throw err;
        }
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
      log(`cached in ${dir}`);
    }
    for (const b of binaries) paths[b.name] ??= join(dir, b.name);
  }
  for (const b of binaries) if (fromEnv[b.name]) log(`${b.env}=${fromEnv[b.name]} (not built)`);
  const record = { kubeApiserver: paths['kube-apiserver'], etcd: paths.etcd, kubernetesVersion: kubeVersion, etcdVersion };
  writeFileSync(join(here, '.binaries.json'), `${JSON.stringify(record, null, 2)}\n`);
  log(`done in ${Date.now() - started} ms`);
}

main();
