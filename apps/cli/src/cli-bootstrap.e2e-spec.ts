import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject, ObjectClient } from '@flotilla/kube';
import { projectEvent } from '../../agent/src/events/project-event';
import type { ProjectResource } from '../../agent/src/project/project-resource';
import { adminClient } from '../../agent/test/install';
import { kubeconfigYaml } from '../../hub/test/kubeconfig';
import { harnessEnv } from '../../../test/harness/env';
import { uniqueName } from '../../../test/e2e/support/spoke';
import { collect, CliUser, expectNoStack } from '../test/run-cli';

// Issue 17, standalone clusters: `project bootstrap` sets up the harness API
// server for a Project (and installs the agent's manifests when they are
// missing), `events` reads what the agent records on the Project, `delete`
// removes the resource, with the Orphan policy and --wait.

jest.setTimeout(90_000);

const PROJECT = 'projects.timoni.sh/v1alpha1';
const AGENT_DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'flotilla-system', name: 'flotilla-agent' };

describe('flotilla project bootstrap/events/delete on a standalone cluster', () => {
  const user = new CliUser();
  let kube: ObjectClient;
  let kubeconfig: string;
  const ns = uniqueName('cli-boot');
  const k = () => ['--kubeconfig', kubeconfig, '--kube-context', 'edge-1', '-n', ns];
  const ref = (name: string) => ({ apiVersion: PROJECT, kind: 'Project', namespace: ns, name });

  beforeAll(async () => {
    kube = adminClient();
    // the agent is "missing" when its Deployment is: bootstrap must put it back
    await kube.delete(AGENT_DEPLOYMENT).catch(() => undefined);
    const env = harnessEnv().kube;
    kubeconfig = join(user.home, 'kubeconfig');
    writeFileSync(kubeconfig, kubeconfigYaml({ server: env.server, caData: env.caData, token: env.admin.token, context: 'edge-1' }));
  });
  afterAll(async () => {
    await kube.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns }).catch(() => undefined);
    await kube.connection.close();
  });

  it('asks first, and changes nothing without a yes', async () => {
    const args = ['project', 'bootstrap', 'shop', ...k(), '--repository', 'oci://127.0.0.1:5000/acme/shop'];
    const no = await user.run(args, { input: 'n\n' });
    expect(no.code).toBe(1);
    expect(no.stdout).toMatch(new RegExp(`^bootstrap of project shop in namespace ${ns} of context edge-1:\\n`));
    expect(no.stdout).toMatch(new RegExp(`\\n {2}create {4}Namespace/${ns}\\n`));
    expect(no.stdout).toMatch(/\n {2}create {4}Deployment\/flotilla-system\/flotilla-agent {3}\(agent\)\n/);
    expect(no.stderr).toMatch(/apply these changes\? \[y\/N\] error: bootstrap cancelled: nothing was changed\nanswer y, or pass --yes\n$/);
    expect(await kube.getOptional({ apiVersion: 'v1', kind: 'Namespace', name: ns })).toBeUndefined();
    expect(await kube.getOptional(AGENT_DEPLOYMENT)).toBeUndefined();

    // no terminal and no answer at all is a no as well
    expect((await user.run(args)).code).toBe(1);
    expect(await kube.getOptional({ apiVersion: 'v1', kind: 'Namespace', name: ns })).toBeUndefined();
  });

  it('bootstraps the namespace, identity, pull secret, Project and agent, then finds nothing to do', async () => {
    const out = await user.ok(['project', 'bootstrap', 'shop', ...k(), '--repository', 'oci://127.0.0.1:5000/acme/shop', '--tag', 'v1', '--pull-creds', 'bot:s3cret', '-a', 'runtime.timoni.sh/ENV=edge'], { input: 'y\n' });
    for (const line of [`created Namespace/${ns}`, `created Secret/${ns}/shop-pull`, `created ServiceAccount/${ns}/shop`, `created RoleBinding/${ns}/flotilla-shop`, `created RoleBinding/${ns}/flotilla-agent-secret-reader`, `created Project/${ns}/shop`, 'created Deployment/flotilla-system/flotilla-agent']) {
      expect(out).toContain(`\n${line}\n`);
    }
    expect(out).toMatch(new RegExp(`project/shop bootstrapped; follow it with \`flotilla project status shop --kubeconfig \\S+ --kube-context edge-1 -n ${ns}\`\\n$`));

    const project = await kube.get(ref('shop'));
    expect(project.spec).toEqual({ serviceAccountName: 'shop', source: { repository: 'oci://127.0.0.1:5000/acme/shop', tag: 'v1', path: 'project.cue' } });
    expect(project.metadata.annotations).toMatchObject({ 'runtime.timoni.sh/ENV': 'edge' });
    const sa = await kube.get({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: ns, name: 'shop' });
    expect(sa.imagePullSecrets).toEqual([{ name: 'shop-pull' }]);
    const secret = await kube.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'shop-pull' });
    expect(secret.type).toBe('kubernetes.io/dockerconfigjson');
    const config = JSON.parse(Buffer.from((secret.data as Record<string, string>)['.dockerconfigjson'], 'base64').toString()) as { auths: Record<string, { username: string; password: string }> };
    expect(config.auths['127.0.0.1:5000']).toMatchObject({ username: 'bot', password: 's3cret' });
    const binding = await kube.get({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', namespace: ns, name: 'flotilla-shop' });
    expect(binding).toMatchObject({ roleRef: { kind: 'ClusterRole', name: 'admin' }, subjects: [{ kind: 'ServiceAccount', name: 'shop', namespace: ns }] });
    expect(await kube.getOptional(AGENT_DEPLOYMENT)).toBeDefined();

    // again: the agent is there and the Project unchanged; the rest is re-applied as it is
    const again = await user.ok(['project', 'bootstrap', 'shop', ...k(), '--repository', 'oci://127.0.0.1:5000/acme/shop', '--tag', 'v1', '--yes']);
    expect(again).toContain('  the agent is installed already\n');
    expect(again).toMatch(new RegExp(`\\n {2}unchanged Project/${ns}/shop\\n`));
    expect(again).not.toContain('(agent)');

    // a Project's spec is immutable: another source is refused before anything is written
    const other = await user.run(['project', 'bootstrap', 'shop', ...k(), '--repository', 'oci://127.0.0.1:5000/acme/other', '--yes']);
    expect(other).toMatchObject({ code: 1, stderr: expect.stringMatching(new RegExp(`^error: project "shop" already exists in ${ns} with another spec\\n`)) });
    expectNoStack(other.stderr);
  });

  it('refuses bad input with a usage error', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['project', 'bootstrap', 'shop', '--repository', 'oci://r/x'], /works on a standalone cluster/],
      [['project', 'bootstrap', 'shop', ...k()], /--repository oci:\/\/host\/path/],
      [['project', 'bootstrap', 'Bad_Name', ...k(), '--repository', 'oci://r/x'], /not a DNS label/],
    ];
    for (const [args, message] of cases) {
      const r = await user.run(args);
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 2, stderr: expect.stringMatching(message) });
    }
  });

  it('shows the events the agent records on the Project', async () => {
    const project = (await kube.get(ref('shop'))) as unknown as ProjectResource;
    const t0 = Date.now();
    const events: KubeObject[] = [
      projectEvent(project, { type: 'Normal', reason: 'InstanceApplied', message: 'web applied: 2 created' }, new Date(t0 - 60_000), 'agent-0', { 'instance.timoni.sh/name': 'web', 'instance.timoni.sh/namespace': ns }),
      projectEvent(project, { type: 'Warning', reason: 'ReconciliationFailed', message: 'fetch failed: registry unreachable' }, new Date(t0 - 5_000), 'agent-0'),
    ];
    for (const e of events) await kube.apply(e, { dryRun: false, force: true, fieldManager: 'flotilla-e2e' });
    // an event about another object is not the Project's
    await kube.apply({ apiVersion: 'v1', kind: 'Event', metadata: { name: `other.${t0}`, namespace: ns }, involvedObject: { kind: 'ConfigMap', name: 'shop', namespace: ns }, reason: 'Other', message: 'not about the Project', type: 'Normal' }, { dryRun: false, force: true, fieldManager: 'flotilla-e2e' });

    const out = await user.ok(['project', 'events', 'shop', ...k()]);
    expect(out).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+MESSAGE\n\S+ ago\s+Normal\s+InstanceApplied\s+web applied: 2 created\n\S+ ago\s+Warning\s+ReconciliationFailed\s+fetch failed: registry unreachable\n$/);
    expect(await user.ok(['project', 'events', 'shop', ...k(), '-o', 'wide', '--limit', '1'])).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+INSTANCE\s+COUNT\s+MESSAGE\n\S+ ago\s+Warning\s+ReconciliationFailed\s+-\s+1\s+fetch failed/);
    const json = JSON.parse(await user.ok(['project', 'events', 'shop', ...k(), '-o', 'json'])) as Array<{ reason: string; instance: string | null }>;
    expect(json.map((e) => [e.reason, e.instance])).toEqual([['InstanceApplied', `${ns}/web`], ['ReconciliationFailed', null]]);

    const missing = await user.run(['project', 'events', 'nope', ...k()]);
    expect(missing).toMatchObject({ code: 1, stderr: expect.stringMatching(new RegExp(`^error: project "nope" not found in namespace ${ns} of context edge-1\\n`)) });
    expectNoStack(missing.stderr);
  });

  it('deletes: Orphan policy first, and --wait until the agent lets it go', async () => {
    // The agent's finalizer holds the resource until it removed the instances; here the test plays the agent.
    const finalizer = { metadata: { finalizers: ['finalizers.timoni.sh'] } };
    await kube.patch(ref('shop'), finalizer, 'merge');
    const orphan = await user.ok(['project', 'delete', 'shop', ...k(), '--orphan']);
    expect(orphan).toBe(`project/shop in ${ns} deleting (instances left in the cluster): the agent lets it go; pass --wait to follow it\n`);
    const held = await kube.get(ref('shop'));
    expect(held.metadata.deletionTimestamp).toBeDefined();
    expect(held.metadata.annotations).toMatchObject({ 'reconcile.timoni.sh/deletionPolicy': 'Orphan' });

    const waiting = user.spawn(['project', 'delete', 'shop', ...k(), '--wait', '--timeout', '60']);
    waiting.stdin!.end();
    const deleting = new Promise<void>((resolve) => {
      let err = '';
      waiting.stderr!.on('data', (d: Buffer) => {
        err += d.toString();
        if (err.includes('waiting for the agent')) resolve();
      });
    });
    const done = collect(waiting, 'project delete --wait', 60_000);
    // once the CLI says it waits, the "agent" lets the resource go
    await deleting;
    await kube.patch(ref('shop'), { metadata: { finalizers: null } }, 'merge');
    const result = await done;
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ code: 0, stdout: `project/shop in ${ns} deleted\n`, stderr: `project/shop in ${ns} deleting: waiting for the agent to let it go…\n` });
    expect(await kube.getOptional(ref('shop'))).toBeUndefined();

    const gone = await user.run(['project', 'delete', 'shop', ...k()]);
    expect(gone).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: project "shop" not found in namespace/) });
  });
});
