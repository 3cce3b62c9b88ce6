import { parseAllDocuments } from 'yaml';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { shopProjectFiles } from '../../../test/e2e/fixtures/projects';
import { eventually } from '../../../test/e2e/support/eventually';
import type { HubFleet } from '../../../test/e2e/support/hub-fleet';
import { projectRepository, publishWebapp } from '../../../test/e2e/support/publish';
import { spokeSuite } from '../../../test/e2e/support/suite';
import { CliUser, expectNoStack } from '../test/run-cli';
import { writeTree } from '../../../test/e2e/support/file-tree';

// Issue 17, the fleet diff: the compiled `flotilla project diff` against a
// compiled hub that dry-runs on the harness API server. A new revision shows
// its changes and prunes, and the cluster is left exactly as it was.

jest.setTimeout(150_000);

interface ClusterDiffJson {
  cluster: string;
  mode: string;
  state: string;
  message: string | null;
  revision: string | null;
  counts: Record<string, number>;
  objects: Array<{ subject: string; action: string; instance: string; diff: string }>;
}

describe('flotilla project diff against a hub', () => {
  let fleet: HubFleet;
  const { registry, ns, kube } = spokeSuite('cli-diff', { started: (f) => (fleet = f) });
  const user = new CliUser();
  let repo: string;
  let moduleUrl: string;
  let v2Dir: string;

  const liveMessages = async () => {
    const maps = await kube.list('v1', 'ConfigMap', { namespace: ns });
    return Object.fromEntries(maps.filter((m) => m.metadata.name?.endsWith('-config')).map((m) => [m.metadata.name!, `${(m.data as Record<string, string>).message}@${m.metadata.resourceVersion}`]));
  };

  beforeAll(async () => {
    moduleUrl = await publishWebapp(registry);
    repo = projectRepository();
    const v1Dir = writeTree(shopProjectFiles({ moduleUrl, moduleVersion: '1.0.0', namespace: ns, infra: ['db', 'cache'], message: 'first' }));
    v2Dir = writeTree(shopProjectFiles({ moduleUrl, moduleVersion: '1.0.0', namespace: ns, infra: ['db'], message: 'second' }));
    await user.ok(['login', '--server', await fleet.hubs[0].url, '--token-stdin'], { input: `${fleet.adminToken}\n` });
    await user.ok(['artifact', 'push', v1Dir, repo, '--tag', 'latest']);
    await user.ok(['artifact', 'push', v2Dir, repo, '--tag', 'v2']);
    await user.ok(['cluster', 'register', 'edge-1', '--mode', 'agent', '--group', 'edge']);
    const file = join(user.home, 'shop.yaml');
    writeFileSync(file, ['name: shop', `namespace: ${ns}`, 'serviceAccountName: deployer', `source: {repository: "${repo}", tag: latest}`, 'targets: {names: [spoke-1, edge-1]}', 'interval: 1h', ''].join('\n'));
    await user.ok(['project', 'apply', '-f', file]);
    await eventually(
      'spoke-1 Ready',
      async () => {
        const s = JSON.parse(await user.ok(['project', 'status', 'shop', '-o', 'json'])) as { targets: Array<{ cluster: string; phase: string }> };
        return s.targets.some((t) => t.cluster === 'spoke-1' && t.phase === 'Ready') ? true : undefined;
      },
      { timeoutMs: 90_000, observe: () => user.ok(['project', 'status', 'shop']) },
    );
  });

  it('shows what a new revision changes and prunes, and applies nothing', () =>
    fleet.guard(async () => {
      const before = await liveMessages();
      expect(Object.keys(before).sort()).toEqual(['cache-config', 'db-config', 'web-config']);

      const out = await user.run(['project', 'diff', 'shop', '--tag', 'v2', '--exit-code']);
      expect({ code: out.code, stderr: out.stderr }).toEqual({ code: 3, stderr: '' });
      expect(out.stdout).toMatch(/^Project shop {2}source tag v2\n\nCLUSTER\s+GROUP\s+MODE\s+STATE\s+REVISION\s+CREATE\s+CHANGE\s+PRUNE\s+UNCHANGED\s+MESSAGE\n/);
      expect(out.stdout).toMatch(/\nedge-1\s+edge\s+agent\s+skipped\s+-\s+0\s+0\s+0\s+0\s+the agent of cluster edge-1 has not registered yet: install/);
      expect(out.stdout).toContain("\n== edge-1\nskipped: the agent of cluster edge-1 has not registered yet: install it with the manifest from GET /api/v1/clusters/edge-1/agent/manifest (flotilla cluster install-agent edge-1)\n");
      expect(out.stdout).toMatch(/\nspoke-1\s+staging\s+push\s+changes\s+v2@sha256:[0-9a-f]{12}…\s+0\s+[1-9]\d*\s+[1-9]\d*\s+\d+\s*\n/);
      expect(out.stdout).toContain(`changed ConfigMap/${ns}/web-config (instance ${ns}/web, component app)`);
      expect(out.stdout).toContain('-  message: first\n+  message: second\n');
      expect(out.stdout).not.toContain(`ConfigMap/${ns}/db-config`);
      expect(out.stdout).toMatch(new RegExp(`pruned ConfigMap/${ns}/cache-config \\(instance ${ns}/cache, component infra\\)`));
      expect(out.stdout).toMatch(/\n1 of 2 clusters would change; nothing was applied\n$/);

      const json = JSON.parse(await user.ok(['project', 'diff', 'shop', '--tag', 'v2', '--cluster', 'spoke-1', '-o', 'json'])) as { clusters: ClusterDiffJson[] };
      expect(json.clusters.map((c) => c.cluster)).toEqual(['spoke-1']);
      const [spoke] = json.clusters;
      expect(spoke).toMatchObject({ state: 'diffed', message: null });
      const web = spoke.objects.find((o) => o.subject === `ConfigMap/${ns}/web-config`);
      expect(web?.action).toBe('changed');
      expect(web?.diff).toMatch(/^--- ConfigMap\/.*\/web-config \(live\)\n\+\+\+ ConfigMap\/.*\/web-config \(after\)\n@@/);
      expect(web?.diff).toContain('+  message: second');
      expect(spoke.objects.filter((o) => o.action === 'pruned').every((o) => o.instance === `${ns}/cache`)).toBe(true);

      // The Project's own tag is what is applied: nothing to change, exit 0 even with --exit-code.
      const same = await user.run(['project', 'diff', 'shop', '--group', 'staging', '--exit-code']);
      expect(same.code).toBe(0);
      expect(same.stdout).toMatch(/\nspoke-1\s+staging\s+push\s+in sync\s+latest@sha256:\S+\s+0\s+0\s+0\s+[1-9]\d*\s*\n/);

      // nothing on the cluster moved: same data, same resourceVersions, the pruned instance still there
      expect(await liveMessages()).toEqual(before);
    })());

  it('diffs a local directory as an upload', () =>
    fleet.guard(async () => {
      const local = writeTree(shopProjectFiles({ moduleUrl, moduleVersion: '1.0.0', namespace: ns, infra: ['db', 'cache'], message: 'from a laptop' }));
      const json = JSON.parse(await user.ok(['project', 'diff', 'shop', '--dir', local, '--cluster', 'spoke-1', '-o', 'json'])) as { source: string; clusters: ClusterDiffJson[] };
      expect(json.source).toBe('upload');
      const [spoke] = json.clusters;
      expect(spoke.revision).toBe('upload');
      expect(spoke.objects.filter((o) => o.action === 'pruned')).toEqual([]);
      expect(spoke.objects.find((o) => o.subject === `ConfigMap/${ns}/web-config`)?.diff).toContain('+  message: from a laptop');
    })());

  it('prints an agent cluster\'s install manifest, and refuses a push cluster', () =>
    fleet.guard(async () => {
      const yaml = await user.ok(['cluster', 'install-agent', 'edge-1']);
      const docs = parseAllDocuments(yaml).map((d) => d.toJS() as { kind: string });
      expect(docs.map((d) => d.kind)).toEqual(expect.arrayContaining(['Namespace', 'CustomResourceDefinition', 'ServiceAccount', 'Deployment', 'Secret']));
      // each call issues a fresh one-time token
      const token = (text: string) => parseAllDocuments(text).map((d) => d.toJS() as { stringData?: { bootstrapToken?: string } }).find((d) => d.stringData?.bootstrapToken)?.stringData?.bootstrapToken;
      expect(token(yaml)).toMatch(/\S{20,}/);
      expect(token(await user.ok(['cluster', 'install-agent', 'edge-1']))).not.toBe(token(yaml));
      expect(await user.ok(['cluster', 'get', 'edge-1'])).toContain('\nagent: never connected (flotilla cluster install-agent NAME | kubectl apply -f -)\n');
      const pushed = await user.run(['cluster', 'install-agent', 'spoke-1']);
      expect({ code: pushed.code, stdout: pushed.stdout, stderr: pushed.stderr }).toEqual({ code: 1, stdout: '', stderr: expect.stringMatching(/^error: cluster "spoke-1" is a push cluster: it has no agent \(request [0-9a-f-]+\)\n/) });
      const missing = await user.run(['cluster', 'install-agent', 'nope']);
      expect({ code: missing.code, stderr: missing.stderr }).toEqual({ code: 1, stderr: expect.stringMatching(/^error: cluster "nope" not found\nrun `flotilla cluster list`/) });
      expectNoStack(pushed.stderr + missing.stderr);
    })());

  it('says what is wrong, with an exit code and no stack trace', () =>
    fleet.guard(async () => {
      const broken = writeTree({ 'project.cue': 'project: {\n\tapiVersion: "v1alpha1"\n\tname: "shop"\n\tcomponents: app: bundle: ["./missing.cue"]\n}\n' });
      const cases: Array<[string[], number, RegExp]> = [
        [['project', 'diff', 'shop', '--cluster', 'nope'], 1, /^error: target "shop\/nope" not found\nrun `flotilla project status shop`/],
        [['project', 'diff', 'shop', '--group', 'nope'], 1, /^error: Targets of project "shop" in group "nope" not found\n/],
        [['project', 'diff', 'nope'], 1, /^error: project "nope" not found\n/],
        [['project', 'diff', 'shop', '--tag', 'no-such-tag', '--cluster', 'spoke-1'], 1, /^error: the diff failed on spoke-1\n/],
        [['project', 'diff', 'shop', '--dir', broken, '--cluster', 'spoke-1'], 1, /^error: the diff failed on spoke-1\n/],
        [['project', 'diff', 'shop', '--dir', join(user.home, 'missing')], 1, /^error: .*missing does not exist\n/],
        [['project', 'diff', 'shop', '--tag', 'v2', '--digest', `sha256:${'a'.repeat(64)}`], 2, /^error: --tag and --digest do not go together\n/],
        [['project', 'diff', 'shop', '--digest', 'sha256:short'], 2, /^error: --digest "sha256:short" is not sha256:/],
      ];
      for (const [args, code, message] of cases) {
        const r = await user.run(args);
        expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code, stderr: expect.stringMatching(message) });
        expectNoStack(r.stderr);
      }
      const missingTag = await user.run(['project', 'diff', 'shop', '--tag', 'no-such-tag', '--cluster', 'spoke-1']);
      expect(missingTag.stdout).toMatch(/spoke-1\s+staging\s+push\s+failed\s+-[\s\S]*\n== spoke-1\nfailed: resolve .*:no-such-tag: /);
      const brokenOut = await user.run(['project', 'diff', 'shop', '--dir', broken, '--cluster', 'spoke-1']);
      expect(brokenOut.stdout).toContain('\n== spoke-1\nfailed: project shop: component app: project.cue:4: bundle file ./missing.cue not found\n');

      // an upload that is not a gzip'd tar is the hub's 400, before any cluster
      const res = await fetch(`${await fleet.hubs[0].url}/api/v1/projects/shop/diff`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fleet.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ artifact: Buffer.from('not a tarball').toString('base64') }),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(/^artifact: not a usable gzip'd tar/);
    })());
});
