import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { harnessEnv } from '../../../test/harness/env';
import { shopProjectFiles } from '../../../test/e2e/fixtures/projects';
import type { HubFleet } from '../../../test/e2e/support/hub-fleet';
import { projectRepository, publishWebapp } from '../../../test/e2e/support/publish';
import { spokeSuite } from '../../../test/e2e/support/suite';
import { eventually } from '../../../test/e2e/support/eventually';
import { collect, CliUser, expectNoStack, waitForOutput } from '../test/run-cli';
import { PROJECT_FILE_FIELDS } from './commands/project/manifest';
import { writeTree } from '../../../test/e2e/support/file-tree';
import { testDir } from '../../../test/harness/temp-dirs';

// Issue 17: the compiled `flotilla` against a compiled hub on the harness
// PostgreSQL, registry and API server, end to end as a platform team would
// use it: login, register the API server from a kubeconfig, push the Project
// artifact, apply it (twice), watch it become Ready, read its events and
// history, reconcile, suspend, resume, delete.

jest.setTimeout(120_000);

describe('flotilla against a hub', () => {
  let fleet: HubFleet;
  const { registry, ns } = spokeSuite('cli-shop', { spokes: [], started: (f) => (fleet = f) });
  const user = new CliUser();
  let hubUrl: string;
  let repo: string;
  let projectDir: string;
  let projectFile: string;

  beforeAll(async () => {
    hubUrl = await fleet.hubs[0].url;
    const moduleUrl = await publishWebapp(registry);
    repo = projectRepository();
    projectDir = writeTree(shopProjectFiles({ moduleUrl, moduleVersion: '1.0.0', namespace: ns, infra: ['db', 'cache'], message: 'from the cli' }));
    projectFile = join(user.home, 'shop.yaml');
    writeFileSync(projectFile, ['name: shop', `namespace: ${ns}`, 'serviceAccountName: deployer', `source: {repository: "${repo}", tag: latest}`, 'targets: {names: [spoke-1]}', 'interval: 10m', ''].join('\n'));
  });

  it('logs in, keeps the token in a 0600 file and never prints it', () =>
    fleet.guard(async () => {
      const bad = await user.run(['login', '--server', hubUrl, '--token-stdin'], { input: 'not-the-token-0123456789' });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/login to http:\/\/127\.0\.0\.1:\d+ failed: the hub .* refused the token/);
      expect(bad.stderr + bad.stdout).not.toContain('not-the-token-0123456789');
      expectNoStack(bad.stderr);

      const out = await user.ok(['login', '--server', hubUrl, '--token-stdin', '--name', 'e2e'], { input: `${fleet.adminToken}\n` });
      expect(out).toMatch(/logged in to http:\/\/127\.0\.0\.1:\d+; context "e2e" is now current/);
      const file = join(user.configDir, 'flotilla', 'config.yaml');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, 'utf8')).toContain(fleet.adminToken);

      await user.ok(['login', '--server', hubUrl, '--name', 'other'], { env: { FLOTILLA_TOKEN: fleet.adminToken } });
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const list = await user.ok(['context', 'list']);
      expect(list).toMatch(/^CURRENT\s+NAME\s+SERVER\n\s+e2e\s+http.*\n\*\s+other\s+http/);
      await user.ok(['context', 'use', 'e2e']);
      expect(await user.ok(['context', 'current'])).toBe(`e2e\t${hubUrl}\n`);
      for (const args of [['context', 'list', '-o', 'json'], ['context', 'list', '-o', 'yaml'], ['context', 'current']]) {
        expect(await user.ok(args)).not.toContain(fleet.adminToken);
      }
      // A wrong token from the environment wins over the context, and is not echoed either.
      const envBad = await user.run(['cluster', 'list'], { env: { FLOTILLA_TOKEN: 'wrong-token-from-env-123456' } });
      expect(envBad.code).toBe(1);
      expect(envBad.stderr).toMatch(/refused the token/);
      expect(envBad.stderr).not.toContain('wrong-token-from-env-123456');
    })());

  it('registers the harness API server from a kubeconfig that names its CA file', () =>
    fleet.guard(async () => {
      const kube = harnessEnv().kube;
      const dir = testDir('flotilla-cli-kubeconfig-');
      writeFileSync(join(dir, 'ca.crt'), kube.caData);
      writeFileSync(join(dir, 'config'), [
        'apiVersion: v1', 'kind: Config', 'current-context: other',
        'clusters:', `- name: harness`, `  cluster: {server: "${kube.server}", certificate-authority: ca.crt}`,
        'users:', `- name: admin`, `  user: {token: "${kube.admin.token}"}`,
        'contexts:', '- name: harness', '  context: {cluster: harness, user: admin}', '- name: other', '  context: {cluster: harness, user: admin}',
      ].join('\n'));
      const missing = await user.run(['cluster', 'register', 'spoke-1', '--kubeconfig', join(dir, 'config'), '--kube-context', 'nope']);
      expect(missing).toMatchObject({ code: 1, stderr: expect.stringMatching(/has no context "nope"\npick one with --kube-context \(contexts: harness, other\)/) });

      const out = await user.ok(['cluster', 'register', 'spoke-1', '--kubeconfig', join(dir, 'config'), '--kube-context', 'harness', '--group', 'staging', '--label', 'env=e2e']);
      expect(out).toMatch(/^cluster\/spoke-1 registered \(push, group staging, https:\/\/127\.0\.0\.1:\d+; reachable, Kubernetes v1\.\d+/);
      expect(out).not.toContain(kube.admin.token);
      expect(await user.ok(['cluster', 'list'])).toMatch(/^NAME\s+GROUP\s+MODE\s+REACHABLE\s+VERSION\s+TARGETS\s+AGE\nspoke-1\s+staging\s+push\s+True\s+v1\.\d+\.\d+\s+0\s+\d+s\n$/);
      const json = JSON.parse(await user.ok(['cluster', 'get', 'spoke-1', '-o', 'json'])) as { labels: Record<string, string>; credentials: { kind: string } };
      expect(json).toMatchObject({ labels: { env: 'e2e' }, credentials: { kind: 'kubeconfig' } });
      expect(await user.ok(['cluster', 'check', 'spoke-1'])).toMatch(/^cluster\/spoke-1 reachable: Kubernetes v1\./);
      await user.ok(['cluster', 'update', 'spoke-1', '--label', 'env=e2e', '--label', 'tier=cli']);
      expect(await user.ok(['cluster', 'list', '-l', 'tier=cli', '-o', 'wide'])).toMatch(/spoke-1.*env=e2e,tier=cli/);

      const unknown = await user.run(['cluster', 'get', 'nope']);
      expect(unknown).toMatchObject({ code: 1, stderr: 'error: cluster "nope" not found\nrun `flotilla cluster list` to see the registered clusters\n' });
      const agent = await user.ok(['cluster', 'register', 'edge-1', '--mode', 'agent']);
      expect(agent).toMatch(/cluster\/edge-1 registered \(agent, group default; not checked\)\ninstall the agent in that cluster: flotilla cluster install-agent edge-1 \| kubectl apply -f -\n/);
      // an upgrade goes over the agent's stream: none yet; a push cluster has no agent
      const early = await user.run(['cluster', 'upgrade-agent', 'edge-1']);
      expect(early).toMatchObject({ code: 1, stdout: '', stderr: expect.stringMatching(/^error: the agent of cluster "edge-1" is not connected: an upgrade goes over its stream/) });
      const push = await user.run(['cluster', 'upgrade-agent', 'spoke-1']);
      expect(push).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: cluster "spoke-1" is a push cluster: it has no agent to upgrade \(request [0-9a-f-]+\)\n$/) });
      expect(await user.run(['cluster', 'upgrade-agent', 'nope'])).toMatchObject({ code: 1, stderr: 'error: cluster "nope" not found\nrun `flotilla cluster list` to see the registered clusters\n' });
      expect(await user.ok(['cluster', 'delete', 'edge-1'])).toBe('cluster/edge-1 deleted\n');
    })());

  it('pushes the artifact, applies the Project idempotently and watches it become Ready', () =>
    fleet.guard(async () => {
      const pushed = await user.ok(['artifact', 'push', projectDir, repo, '--tag', 'latest', '--tag', 'v1']);
      const digest = /^pushed oci:\/\/.*@(sha256:[0-9a-f]{64})\n/.exec(pushed)?.[1];
      expect(digest).toBeDefined();
      expect(pushed).toContain(`tagged ${repo}:v1`);
      await user.ok(['artifact', 'tag', `${repo}:v1`, '--tag', 'stable']);
      const tags = await user.ok(['artifact', 'list', repo]);
      expect(tags.split('\n').map((l) => l.split(/\s+/))).toEqual([['TAG', 'DIGEST'], ['latest', digest], ['stable', digest], ['v1', digest], ['']]);

      expect(await user.ok(['project', 'apply', '-f', projectFile])).toBe('project/shop created\n');
      expect(await user.ok(['project', 'apply', '-f', projectFile])).toBe('project/shop unchanged\n');

      const watch = user.spawn(['project', 'status', 'shop', '--watch', '--interval', '0.5']);
      const done = collect(watch, 'project status --watch', 90_000);
      // the suite never releases the webapp's pods: applied, its Deployments are not available, and the CLI says so
      const seen = await waitForOutput(watch, new RegExp(`spoke-1\\s+staging\\s+Ready \\(Unhealthy\\)\\s+latest@${digest!.slice(0, 19)}\\s`), 60_000);
      watch.kill('SIGINT');
      expect((await done).code).toBe(0);
      expect(seen).toMatch(/^Project shop {2}namespace /);

      const wide = await user.ok(['project', 'status', 'shop', '-o', 'wide']);
      // the module's pods stay gated (never released here) and no component waits: applied, not ready, and Healthy=False says so
      for (const instance of ['db', 'cache', 'web']) expect(wide).toMatch(new RegExp(`spoke-1\\s+(infra|app)\\s+Succeeded\\s+${ns}/${instance}\\s+\\S+@1\\.0\\.0\\s+applied\\s+false\\s+\\+2 ~0 =0 -0`));
      expect(wide).toContain('Ready=True,Healthy=False');
      expect(wide).toMatch(/^Targets: 1\/1 ready, 1 unhealthy$/m);
      // applied everywhere but not healthy: the list says so, not a green Ready
      expect(await user.ok(['project', 'list'])).toMatch(new RegExp(`^NAME\\s+NAMESPACE\\s+STATE\\s+READY\\s+SOURCE\\s+UPDATED\\nshop\\s+${ns}\\s+Unhealthy\\s+1/1\\s+${repo.replace(/[.]/g, '\\.')}:latest\\s`));
      expect(await user.ok(['project', 'events', 'shop'])).toMatch(/spoke-1\s+Normal\s+InstanceApplied\s+/);
      const history = await user.ok(['project', 'history', 'shop']);
      expect(history).toMatch(new RegExp(`^CLUSTER\\s+STARTED\\s+TRIGGER\\s+RESULT\\s+REVISION\\s+DURATION\\s+ERROR\\nspoke-1\\s+\\S+ ago\\s+Created\\s+Succeeded\\s+latest@${digest}`));

      // A change in the file is a PATCH of just that field, and a new generation.
      writeFileSync(projectFile, readFileSync(projectFile, 'utf8').replace('interval: 10m', 'interval: 20m'));
      expect(await user.ok(['project', 'apply', '-f', projectFile])).toBe('project/shop configured\n');
      const p = JSON.parse(await user.ok(['project', 'status', 'shop', '-o', 'json'])) as { project: { interval: string; generation: number } };
      expect(p.project).toMatchObject({ interval: '20m', generation: 2 });
    })());

  it('reconciles, suspends and resumes', () =>
    fleet.guard(async () => {
      expect(await user.ok(['project', 'reconcile', 'shop', '--cluster', 'spoke-1'])).toMatch(/^project\/shop: reconcile requested on 1 target;/);
      const runs = await eventually(
        'a Manual run that succeeded',
        async () => {
          const all = JSON.parse(await user.ok(['project', 'history', 'shop', '-o', 'json'])) as Array<{ trigger: string; result: string }>;
          return all.some((r) => r.trigger === 'Manual' && r.result === 'Succeeded') ? all : undefined;
        },
        { timeoutMs: 45_000, observe: () => user.ok(['project', 'history', 'shop']) },
      );
      expect(runs.length).toBeGreaterThanOrEqual(2);

      expect(await user.ok(['project', 'suspend', 'shop'])).toBe('project/shop suspended\n');
      expect(await user.ok(['project', 'status', 'shop'])).toMatch(/suspended\n[\s\S]*spoke-1\s+staging\s+Suspended\s/);
      const refused = await user.run(['project', 'reconcile', 'shop']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^error: .*suspend/);
      expect(await user.ok(['project', 'list', '--suspended', 'true'])).toMatch(/shop\s+\S+\s+Suspended/);
      expect(await user.ok(['project', 'resume', 'shop'])).toBe('project/shop resumed\n');
      expect(await user.ok(['project', 'events', 'shop', '-o', 'json'])).toMatch(/"reason": "Resumed"/);
    })());

  it('takes in a Project file every field the hub takes when it creates a Project', async () => {
    const doc = (await (await fetch(`${hubUrl}/api/docs-json`)).json()) as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
    expect([...PROJECT_FILE_FIELDS].sort()).toEqual(Object.keys(doc.components.schemas.CreateProjectDto.properties).sort());
  });

  it('says what is wrong with bad input, without a stack trace', () =>
    fleet.guard(async () => {
      const bad = join(user.home, 'bad.yaml');
      writeFileSync(bad, 'name: shop\nnamespace: [unclosed\n');
      const cases: Array<[string[], number, RegExp]> = [
        [['project', 'apply', '-f', join(user.home, 'missing.yaml')], 1, /cannot read .*missing\.yaml: ENOENT/],
        [['project', 'apply', '-f', bad], 1, /bad\.yaml:\d+:\d+: not valid YAML or JSON/],
        [['project', 'status', 'nope'], 1, /^error: project "nope" not found\nrun `flotilla project list`/],
        [['project', 'history', 'shop', '--cluster', 'nope'], 2, /project "shop" has no target on cluster "nope"/],
        [['project', 'reconcile', 'shop', '--cluster', 'nope'], 1, /^error: target "shop\/nope" not found\nrun `flotilla project status shop`/],
        [['cluster', 'delete', 'nope'], 1, /cluster "nope" not found/],
        [['project', 'status', 'shop'], 1, /no hub context/],
      ];
      writeFileSync(join(user.home, 'unknown.json'), JSON.stringify({ name: 'shop', namespace: ns, sauce: 1 }));
      cases.push([['project', 'apply', '-f', join(user.home, 'unknown.json')], 1, /project "shop" has unknown field sauce/]);
      for (const [args, code, message] of cases) {
        const env = args.join(' ') === 'project status shop' ? { XDG_CONFIG_HOME: join(user.home, 'empty') } : undefined;
        const r = await user.run(args, { env });
        expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code, stderr: expect.stringMatching(message) });
        expectNoStack(r.stderr);
        expect(r.stderr).not.toContain(fleet.adminToken);
      }
    })());

  it('registers clusters from flags, creates a Project from flags and deletes it leaving its instances', () =>
    fleet.guard(async () => {
      const kube = harnessEnv().kube;
      const dir = testDir('flotilla-cli-flags-');
      for (const [f, text] of [['ca.crt', kube.caData], ['token', `${kube.admin.token}\n`], ['tls.crt', kube.certAdmin.clientCertificateData], ['tls.key', kube.certAdmin.clientKeyData]]) writeFileSync(join(dir, f), text);
      const byToken = await user.ok(['cluster', 'register', 'spoke-token', '--server', kube.server, '--token-file', join(dir, 'token'), '--certificate-authority', join(dir, 'ca.crt')]);
      expect(byToken).toMatch(/^cluster\/spoke-token registered \(push, group default, https:.*; reachable, Kubernetes v1\./);
      const byCert = await user.ok(['cluster', 'register', 'spoke-cert', '--server', kube.server, '--client-certificate', join(dir, 'tls.crt'), '--client-key', join(dir, 'tls.key'), '--certificate-authority', join(dir, 'ca.crt')]);
      expect(byCert).toMatch(/reachable, Kubernetes v1\./);
      expect(JSON.parse(await user.ok(['cluster', 'get', 'spoke-cert', '-o', 'json']))).toMatchObject({ credentials: { kind: 'clientCertificate' } });
      const half = await user.run(['cluster', 'register', 'x', '--server', kube.server, '--client-key', join(dir, 'tls.key')]);
      expect(half).toMatchObject({ code: 2, stderr: 'error: --client-certificate and --client-key go together\n' });

      expect(await user.ok(['project', 'create', 'extra', '--namespace', ns, '--repository', repo, '--cluster', 'spoke-token', '--suspend'])).toMatch(/^project\/extra created \(1 target\);/);
      expect(await user.ok(['project', 'status', 'extra'])).toMatch(/suspended\n[\s\S]*spoke-token\s+default\s+Suspended\s/);
      // A cluster still targeted is refused unless forced, and the message says so.
      const targeted = await user.run(['cluster', 'delete', 'spoke-token']);
      expect(targeted.code).toBe(1);
      expect(targeted.stderr).toMatch(/--force/);
      expect(await user.ok(['project', 'delete', 'extra', '--orphan'])).toBe('project/extra deleted (instances left on the clusters)\n');
      expect(await user.ok(['cluster', 'delete', 'spoke-token'])).toBe('cluster/spoke-token deleted\n');
      expect(await user.ok(['cluster', 'delete', 'spoke-cert'])).toBe('cluster/spoke-cert deleted\n');
    })());

  it('deletes the Project and waits while its cluster prunes', () =>
    fleet.guard(async () => {
      const out = await user.run(['project', 'delete', 'shop', '--wait', '--timeout', '60']);
      expect(out).toMatchObject({ code: 0, stdout: 'project/shop deleted\n', stderr: expect.stringMatching(/deleting: waiting for its clusters to prune/) });
      expect((await user.run(['project', 'status', 'shop'])).stderr).toMatch(/project "shop" not found/);
      expect(await user.ok(['project', 'list'])).toMatch(/^no Projects/);
    })());
});
