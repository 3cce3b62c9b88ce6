// Builds the real kube-apiserver, etcd, kube-controller-manager and
// kube-scheduler from their Go modules, and kwok from its own (./kwok), once
// per version key, into ${FLOTILLA_CACHE_DIR:-~/.cache/flotilla}; later runs
// reuse the cache. Writes .binaries.json beside this file so the harness finds
// them. KUBE_APISERVER_BIN, ETCD_BIN, KUBE_CONTROLLER_MANAGER_BIN,
// KUBE_SCHEDULER_BIN and KWOK_BIN point at prebuilt binaries instead.
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
const kwokGoMod = readFileSync(join(here, 'kwok/go.mod'), 'utf8');
const kwokVersion = kwokGoMod.match(/^\s*sigs\.k8s\.io\/kwok (v\S+)/m)?.[1];
if (!kwokVersion) throw new Error(`${join(here, 'kwok/go.mod')}: no version pinned for sigs.k8s.io/kwok`);
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
// The Kubernetes binaries come from one `go build` (shared packages compile
// once); kwok from its own module, which pins its own client versions.
const binaries = [
  { name: 'kube-apiserver', key: 'kubeApiserver', pkg: './cmd/kube-apiserver', env: 'KUBE_APISERVER_BIN' },
  { name: 'etcd', key: 'etcd', pkg: './cmd/etcd', env: 'ETCD_BIN' },
  { name: 'kube-controller-manager', key: 'kubeControllerManager', pkg: './cmd/kube-controller-manager', env: 'KUBE_CONTROLLER_MANAGER_BIN' },
  { name: 'kube-scheduler', key: 'kubeScheduler', pkg: './cmd/kube-scheduler', env: 'KUBE_SCHEDULER_BIN' },
  { name: 'kwok', key: 'kwok', pkg: 'sigs.k8s.io/kwok/cmd/kwok', dir: 'kwok', env: 'KWOK_BIN' },
];
const kubeLdflags = ['-s', '-w', ...versionFlags];

function goVersion() {
  const res = spawnSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`kube-apiserver build: \`go env GOVERSION\` failed (is Go installed?): ${res.stderr}`);
  return res.stdout.trim();
}

function inputsHash() {
  const hash = createHash('sha256');
  const files = ['go.mod', 'go.sum', 'kwok/go.mod', 'kwok/go.sum', ...binaries.filter((b) => !b.dir).map((b) => `${b.pkg}/main.go`)];
  for (const file of files) {
    hash.update(file).update('\0').update(readFileSync(join(here, file))).update('\0');
  }
  hash.update(kubeLdflags.join(' ')).update('\0');
  return hash.digest('hex').slice(0, 12);
}

/** The build date is the release's module time, so equal inputs give equal binaries. */
function buildDateFlags(env) {
  const res = spawnSync('go', ['list', '-m', '-json', 'k8s.io/kubernetes'], { cwd: here, env, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`kube-apiserver build: go list -m k8s.io/kubernetes failed: ${res.stderr}`);
  const time = JSON.parse(res.stdout).Time.replace(/\.\d+Z$/, 'Z');
  return ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'].map((pkg) => `-X ${pkg}.buildDate=${time}`);
}

function goBuild(label, cwd, env, ldflags, outDir, pkgs) {
  const t = Date.now();
  const args = ['-n', '10', 'go', 'build', '-p', '2', '-trimpath', '-ldflags', ldflags.join(' '), '-o', `${outDir}/`, ...pkgs];
  log(`go build ${pkgs.join(' ')} (nice -n 10, -p 2; ${label})`);
  const res = spawnSync('nice', args, { cwd, env, stdio: 'inherit' });
  if (res.status !== 0) throw new Error(`kube-apiserver build: go build ${pkgs.join(' ')} failed with exit code ${res.status}`);
  log(`built ${pkgs.length} binaries in ${((Date.now() - t) / 1000).toFixed(1)}s`);
}

function build(outDir) {
  const env = { ...process.env, GOFLAGS: `${process.env.GOFLAGS ?? ''} -mod=mod`.trim(), GOMAXPROCS: '2', CGO_ENABLED: '0' };
  const dateFlags = buildDateFlags(env);
  const kube = binaries.filter((b) => !b.dir);
  goBuild('a cold build takes about 12 minutes on 2 cores', here, env, [...kubeLdflags, ...dateFlags], outDir, kube.map((b) => b.pkg));
  goBuild('about 5 minutes cold, mostly its own Kubernetes packages', join(here, 'kwok'), env, ['-s', '-w'], outDir, ['sigs.k8s.io/kwok/cmd/kwok']);
  for (const b of binaries) log(`${b.name}: ${(statSync(join(outDir, b.name)).size / 1e6).toFixed(1)} MB`);
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
  const record = { ...Object.fromEntries(binaries.map((b) => [b.key, paths[b.name]])), kubernetesVersion: kubeVersion, etcdVersion, kwokVersion };
  writeFileSync(join(here, '.binaries.json'), `${JSON.stringify(record, null, 2)}\n`);
  log(`done in ${Date.now() - started} ms`);
}

main();
