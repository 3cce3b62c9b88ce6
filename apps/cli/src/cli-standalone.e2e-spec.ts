import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ObjectClient } from '@flotilla/kube';
import { adminClient, installAgent } from '../../agent/test/install';
import { kubeconfigYaml } from '../../hub/test/kubeconfig';
import { harnessEnv } from '../../../test/harness/env';
import { uniqueName } from '../../../test/e2e/support/spoke';
import { CliUser, expectNoStack } from '../test/run-cli';

// Issue 17, standalone clusters: reconcile, suspend and resume of a Project
// resource through a kubeconfig context, with the annotations the agent
// honours (docs/agent.md; the agent's reaction to them is the agent suites'
// business). The CRD comes from deploy/agent as an operator installs it.

jest.setTimeout(90_000);

describe('flotilla project list/status/reconcile/suspend/resume on a standalone cluster', () => {
  const user = new CliUser();
  let kube: ObjectClient;
  let kubeconfig: string;
  const ns = uniqueName('cli-standalone');
  const ref = { apiVersion: 'projects.timoni.sh/v1alpha1', kind: 'Project', namespace: ns, name: 'shop' };
  const annotations = async () => (await kube.get(ref)).metadata.annotations ?? {};

  beforeAll(async () => {
    kube = adminClient();
    await installAgent(kube);
    await kube.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, { dryRun: false, force: true, fieldManager: 'flotilla-e2e' });
    await kube.apply({ apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: 'shop', namespace: ns, annotations: { 'runtime.timoni.sh/cluster': 'edge-1' } }, spec: { source: { repository: 'oci://127.0.0.1:1/shop' } } }, { dryRun: false, force: true, fieldManager: 'flotilla-e2e' });
    const env = harnessEnv().kube;
    kubeconfig = join(user.home, 'kubeconfig');
    writeFileSync(kubeconfig, kubeconfigYaml({ server: env.server, caData: env.caData, token: env.admin.token, context: 'edge-1' }));
  });
  afterAll(async () => {
    await kube.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns }).catch(() => undefined);
    await kube.connection.close();
  });

  it('annotates the Project as the agent expects, and leaves the hub out of it', async () => {
    const k = ['--kubeconfig', kubeconfig, '--kube-context', 'edge-1', '-n', ns];
    // No hub context exists for this user: a hub call would fail with "no hub context".
    expect(await user.ok(['project', 'reconcile', 'shop', ...k])).toBe(`project/shop in ${ns}: reconcile requested from the agent\n`);
    const first = (await annotations())['reconcile.timoni.sh/requestedAt'];
    expect(Date.parse(first)).not.toBeNaN();
    await user.ok(['project', 'reconcile', 'shop', ...k]);
    expect((await annotations())['reconcile.timoni.sh/requestedAt']).not.toBe(first);

    expect(await user.ok(['project', 'suspend', 'shop', ...k])).toBe('project/shop suspended\n');
    expect(await annotations()).toMatchObject({ 'reconcile.timoni.sh/suspend': 'true', 'runtime.timoni.sh/cluster': 'edge-1' });
    expect(await user.ok(['project', 'resume', 'shop', ...k])).toBe('project/shop resumed\n');
    expect(await annotations()).not.toHaveProperty(['reconcile.timoni.sh/suspend']);
    expect(await annotations()).toHaveProperty(['runtime.timoni.sh/cluster'], 'edge-1');
  });

  it('names the Project and the namespace it is missing from, exit 1; --cluster is for the hub, exit 2', async () => {
    const missing = await user.run(['project', 'suspend', 'nope', '--kubeconfig', kubeconfig, '--kube-context', 'edge-1', '-n', ns]);
    expect(missing).toMatchObject({ code: 1, stderr: `error: project "nope" not found in namespace ${ns} of context edge-1\ncheck -n, or whether the Project CRD is installed (kubectl get projects.timoni.sh -A)\n` });
    const badContext = await user.run(['project', 'reconcile', 'shop', '--kubeconfig', kubeconfig, '--kube-context', 'nowhere']);
    expect(badContext.code).toBe(1);
    expect(badContext.stderr).toMatch(/kubeconfig .*: .*nowhere/);
    expectNoStack(badContext.stderr);
    expect((await user.run(['project', 'reconcile', 'shop', '--kube-context', 'edge-1', '--kubeconfig', kubeconfig, '--cluster', 'x'])).code).toBe(2);
  });

  it('lists and shows Projects from the status the agent writes', async () => {
    const k = ['--kubeconfig', kubeconfig, '--kube-context', 'edge-1'];
    expect(await user.ok(['project', 'status', 'shop', ...k, '-n', ns])).toMatch(/no status yet: is the agent running in this cluster\?/);
    // What an agent would write after a good run (there is none in the harness).
    const revision = `latest@sha256:${'a'.repeat(64)}`;
    await kube.patch(ref, {
      status: {
        conditions: [{ type: 'Ready', status: 'True', reason: 'ReconciliationSucceeded', message: `Applied revision ${revision}`, lastTransitionTime: new Date().toISOString() }],
        lastAppliedRevision: revision,
        nextReconcileAt: new Date(Date.now() + 600_000).toISOString(),
        components: [{ name: 'app', status: 'Succeeded', durationMs: 12, instances: [{ name: 'web', namespace: ns, ready: true, objects: 2, module: { name: 'webapp', version: '1.0.0' } }] }],
      },
    }, 'merge', { subresource: 'status' });
    expect(await user.ok(['project', 'list', ...k])).toMatch(new RegExp(`NAMESPACE\\s+NAME\\s+READY\\s+REASON\\s+SUSPENDED\\s+REVISION\\s+AGE\\n(.*\\n)*${ns}\\s+shop\\s+True\\s+ReconciliationSucceeded\\s+false\\s+latest@sha256:a{64}\\s`));
    const status = await user.ok(['project', 'status', 'shop', ...k, '-n', ns]);
    expect(status).toMatch(new RegExp(`^Project ${ns}/shop  source oci://127\\.0\\.0\\.1:1/shop:latest  active\\nRevision: latest@sha256:a{64}  next run: in (9m5\\ds|10m)\\n`));
    expect(status).toMatch(/Ready\s+True\s+ReconciliationSucceeded\s+Applied revision/);
    expect(status).toMatch(new RegExp(`app\\s+Succeeded\\s+${ns}/web\\s+webapp@1\\.0\\.0\\s+true\\s+2`));
    expect(JSON.parse(await user.ok(['project', 'status', 'shop', ...k, '-n', ns, '-o', 'json']))).toMatchObject({ status: { lastAppliedRevision: revision } });
    const missing = await user.run(['project', 'status', 'nope', ...k, '-n', ns]);
    expect(missing).toMatchObject({ code: 1, stderr: expect.stringMatching(`project "nope" not found in namespace ${ns} of context edge-1`) });
    expect((await user.run(['project', 'status', 'shop', ...k, '-n', ns, '--watch'])).code).toBe(2);
  });
});
