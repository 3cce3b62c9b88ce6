// The images as they ship, started with podman: the hub image as a non-root
// user on a read-only root file system answers /readyz; the agent image,
// with a kubeconfig file mounted, registers with that hub, writes its
// assignment into the harness API server and reconciles it from the harness
// registry. test/images/build.mjs builds both first (cached: a warm run
// rebuilds only what changed in the tree).
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { adminManager, createTenant, unique } from '../../libs/engine/testdata/harness';
import { eventually } from '../../libs/kube/testdata/eventually';
import { AGENT_NAMESPACE, agentKubeconfig, installAgent, removeConnectedInstall } from '../../apps/agent/test/install';
import { configMaps, getProject, projectRepository, pushGreeter, pushGreeterModule } from '../../apps/agent/test/project-fixtures';
import { ensureDebianPackage } from '../harness/apt';
import { testDir } from '../harness/temp-dirs';
import { builtImages, Container, type BuiltImages } from './container';
import { adminCall, type ApiResponse } from '../e2e/support/admin-call';

const APP_USER = 65532;
const exec = promisify(execFile);

/** The Debian packages the build and the containers need (.ci/run installs them too). */
function ensureContainerTools(): void {
  for (const [pkg, probe] of [
    ['buildah', '/usr/bin/buildah'],
    ['podman', '/usr/bin/podman'],
    ['mmdebstrap', '/usr/bin/mmdebstrap'],
    ['runc', '/usr/sbin/runc'],
  ]) ensureDebianPackage(pkg, probe);
}

function buildImages(): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    const child = spawn('nice', [process.execPath, join(__dirname, 'build.mjs')], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`test/images/build.mjs failed (${code}):\n${out.slice(-6000)}`));
      // the images' sizes, in the run's output as the harness prints its start
      process.stderr.write(`\n${out.split('\n').filter((l) => /^images build: (hub|agent|base|building the Node base) /.test(l)).join('\n')}\n`);
      resolve();
    });
  });
}

/** A directory the app user owns, for a file the container reads. */
function userFile(name: string, text: string): string {
  const dir = testDir('flotilla-image-');
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  chownSync(path, APP_USER, APP_USER);
  return path;
}

/** The effective uid of a process, from /proc on the host. */
async function uidOf(container: Container): Promise<number> {
  const pid = await container.inspect('{{.State.Pid}}');
  return Number(/^Uid:\s+\d+\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
}

// The restricted shape the Helm chart and deploy/agent give both: a numeric
// non-root user, a read-only root, writable tmpfs only where the READMEs say.
const restricted = (writable: string[]) => [
  '--read-only',
  '--user', `${APP_USER}:${APP_USER}`,
  '--network', 'host',
  '--cap-drop', 'ALL',
  '--security-opt', 'no-new-privileges',
  ...writable.flatMap((path) => ['--tmpfs', `${path}:rw,size=512m,U`]),
];

jest.setTimeout(300_000);

describe('the images, built and started', () => {
  const { manager } = adminManager();
  const client = manager.client;
  const adminToken = `adm_${randomBytes(16).toString('hex')}`;
  let images: BuiltImages;
  let hub: Container;
  let agent: Container | undefined;
  let hubUrl: string;

  function call(method: string, path: string, body?: unknown): Promise<ApiResponse> {
    return adminCall(hubUrl, adminToken, method, path, body, 30_000);
  }

  beforeAll(async () => {
    ensureContainerTools();
    await buildImages();
    images = builtImages();
    hub = new Container({
      image: images.hub.name,
      podman: [
        ...restricted(['/var/lib/flotilla', '/tmp']),
        // the embedded database (PGlite) in FLOTILLA_DATA_DIR; both ports chosen by the hub, on loopback only
        ...Object.entries({
          HOST: '127.0.0.1',
          PORT: '0',
          FLOTILLA_AGENT_PORT: '0',
          FLOTILLA_ADMIN_TOKEN: adminToken,
          FLOTILLA_ENCRYPTION_KEYS: `img1:${randomBytes(32).toString('base64')}`,
          FLOTILLA_EGRESS_ALLOW_LOOPBACK: 'on',
          FLOTILLA_SCHEDULER_TICK: '200ms',
          FLOTILLA_SOURCE_POLL_INTERVAL: '1s',
          FLOTILLA_SHUTDOWN_GRACE: '2s',
        }).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
      ],
    });
    hubUrl = await hub.url;
  }, 30 * 60_000);

  afterAll(async () => {
    await agent?.stop();
    await hub?.stop();
    // the API server is shared by the whole run: leave the agent's identity as the standalone install has it
    await removeConnectedInstall(client);
    await client.delete({ apiVersion: 'v1', kind: 'Secret', namespace: AGENT_NAMESPACE, name: 'flotilla-agent-identity' }).catch(() => undefined);
    await installAgent(client);
    await client.connection.close();
  });

  it('the hub runs as 65532 on a read-only root file system and answers /readyz on 127.0.0.1', async () => {
    expect(new URL(hubUrl).hostname).toBe('127.0.0.1');
    expect(await hub.inspect('{{.HostConfig.ReadonlyRootfs}}')).toBe('true');
    expect(await uidOf(hub)).toBe(APP_USER);
    const ready = await eventually('/readyz answers 200', async () => {
      const res = await fetch(`${hubUrl}/readyz`, { signal: AbortSignal.timeout(10_000) });
      return res.status === 200 ? res : undefined;
    }, 60_000);
    expect(ready.status).toBe(200);
  });

  it('the agent image registers with the hub image and reconciles its Project in the harness cluster', async () => {
    const cluster = unique('imaged');
    const [moduleUrl, ns] = await Promise.all([pushGreeterModule(), createTenant(client, 'images')]);
    try {
      expect((await call('POST', '/api/v1/clusters', { name: cluster, group: 'edge', mode: 'agent' })).status).toBe(201);
      const manifest = await call('GET', `/api/v1/clusters/${cluster}/agent/manifest`);
      expect(manifest.status).toBe(200);
      const dir = testDir('agent-manifest-');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'install.yaml'), manifest.text);
      await installAgent(client, dir);
      const hubSecret = await client.get({ apiVersion: 'v1', kind: 'Secret', namespace: AGENT_NAMESPACE, name: 'flotilla-agent-hub' });
      const fromSecret = (k: string) => Buffer.from((hubSecret.data as Record<string, string>)[k], 'base64').toString();

      const kubeconfig = userFile('kubeconfig', await agentKubeconfig(client));
      agent = new Container({
        image: images.agent.name,
        podman: [
          ...restricted(['/var/cache/flotilla', '/tmp']),
          '--volume', `${kubeconfig}:/etc/flotilla/kubeconfig:ro`,
          '--env', `FLOTILLA_HUB_BOOTSTRAP_TOKEN=${fromSecret('bootstrapToken')}`,
          '--env', `FLOTILLA_HUB_CA=${fromSecret('hubCa')}`,
        ],
        args: [
          '--kubeconfig=/etc/flotilla/kubeconfig',
          '--cache-dir=/var/cache/flotilla',
          '--http-address=127.0.0.1:0',
          `--identity=${unique('agent-image')}`,
          `--namespace=${ns}`,
          `--hub-address=${fromSecret('hubAddress')}`,
          `--hub-identity-secret=${AGENT_NAMESPACE}/flotilla-agent-identity`,
          '--hub-heartbeat=500ms',
          '--reconcile-interval=2s',
          '--retry-initial=500ms',
          '--retry-max=2s',
        ],
      });
      await agent.url;
      expect(await uidOf(agent)).toBe(APP_USER);
      expect(await agent.inspect('{{.HostConfig.ReadonlyRootfs}}')).toBe('true');

      const repo = projectRepository();
      const digest = await pushGreeter(repo, moduleUrl, ns, { cache: true, shout: false });
      const created = await call('POST', '/api/v1/projects', {
        name: 'greet', namespace: ns, serviceAccountName: 'deployer', source: { repository: repo, tag: 'latest' }, targets: { names: [cluster] },
      });
      expect(created.status).toBe(201);
      const target = await eventually('the Target Ready on the hub', async () => {
        const v = (await call('GET', `/api/v1/projects/greet/targets/${cluster}`)).body;
        return v?.phase === 'Ready' ? v : undefined;
      }, 180_000).catch((err: Error) => {
        throw new Error(`${err.message}\n--- hub ---\n${hub.tail(30)}\n--- agent ---\n${agent?.tail(30)}`, { cause: err });
      });
      expect(target).toMatchObject({ lastAppliedRevision: `latest@${digest}` });
      expect((await configMaps(client, ns))['web-greeting']).toEqual({ greeting: 'web', cluster });
      expect((await getProject(client, ns, 'greet'))?.metadata.annotations).toMatchObject({ 'hub.flotilla.dev/digest': digest });
      expect((await call('GET', `/api/v1/clusters/${cluster}`)).body.agent).toMatchObject({ connected: true, registered: true });
      // SIGTERM to PID 1 of the container: the agent stops cleanly
      expect(await agent.stop()).toBe(0);
      agent = undefined;
    } finally {
      await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns }).catch(() => undefined);
    }
  });

  it('the agent image carries only what the agent needs: no hub code or UI, no hub-only or dev packages, no npm, no Go', async () => {
    const mount = (await exec('podman', ['image', 'mount', images.agent.name], { timeout: 60_000 })).stdout.trim();
    try {
      const has = (path: string) => existsSync(join(mount, path));
      expect(has('app/dist/apps/agent/src/main.js')).toBe(true);
      expect(has('app/cue-wasm/cue-native')).toBe(true);
      for (const path of ['app/dist/apps/hub', 'app/dist/ui', 'usr/local/go', 'usr/local/bin/npm', 'usr/local/lib/node_modules', 'app/deploy']) expect([path, has(path)]).toEqual([path, false]);
      // what the agent requires is there; the hub's database, web framework and dev tools are not
      for (const pkg of ['@grpc/grpc-js', 'undici', 'yaml', 'tar', 'pino']) expect([pkg, has(`app/node_modules/${pkg}/package.json`)]).toEqual([pkg, true]);
      for (const pkg of ['typeorm', '@electric-sql/pglite', '@nestjs/core', 'pg', 'typescript', 'jest', 'esbuild', '@swc/core']) expect([pkg, has(`app/node_modules/${pkg}`)]).toEqual([pkg, false]);
    } finally {
      await exec('podman', ['image', 'unmount', images.agent.name], { timeout: 60_000 });
    }
    // and so it is smaller than the hub image (sizes: test/images/build.mjs prints them)
    expect(images.agent.size).toBeLessThan(images.hub.size);
  });

  it('the hub stops cleanly on SIGTERM as PID 1', async () => {
    expect(await hub.stop()).toBe(0);
  });
});
