// The diff against the harness API server: a Project applied by a reconcile,
// then diffed with a new revision; every kind of change is reported and
// nothing on the cluster moves.
import type { KubeObject } from '@flotilla/kube';
import { adminManager, createTenant, pushProject, registryClient, registryHost, unique } from '../testdata/harness';
import { ProjectLoadError, TenantPolicyError } from './errors';
import { diffProject } from './project-diff';
import { reconcileProject } from './project-reconcile';
import { SourceCache } from './source-fetch';
import { MemoryGenerator, type MemoryComponent } from './test-support';
import type { ProjectSpec } from './types';

const { connection, manager } = adminManager();
afterAll(() => connection.close());
const sources = new SourceCache();

describe('diffProject (real API server, in-memory generator)', () => {
  let ns: string;
  let project: ProjectSpec;
  const cluster = { name: 'c1', group: 'g' };
  const secret = (name: string, value: string): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: ns }, data: { password: Buffer.from(value).toString('base64') } });

  beforeAll(async () => {
    ns = await createTenant(manager.client, 'engine-diff');
    const repo = `oci://${registryHost()}/projects/${unique('diff')}`;
    await pushProject(registryClient(), repo, { 'project.cue': '// in-memory\n' });
    project = { name: 'shop', namespace: ns, source: { repository: repo, tag: 'latest', path: 'project.cue' }, serviceAccountName: 'deployer', annotations: {} };
  });

  const live = () => manager.client.list('v1', 'ConfigMap', { namespace: ns });

  it('reports created, changed (masked) and pruned objects and applies nothing', async () => {
    const first: MemoryComponent[] = [
      { name: 'app', needs: [], wait: false, instances: { web: { namespace: ns, configMaps: { settings: { color: 'blue' }, legacy: { a: '1' } }, objects: [secret('creds', 'old-secret-value')] } } },
      { name: 'extra', needs: [], wait: false, instances: { side: { namespace: ns, configMaps: { side: { b: '2' } } } } },
    ];
    const applied = await reconcileProject({ project, cluster, owner: 'hub' }, { generator: new MemoryGenerator(first), manager, sources });
    expect(applied.ok).toBe(true);
    const before = (await live()).map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort();

    const next: MemoryComponent[] = [
      { name: 'app', needs: [], wait: false, instances: { web: { namespace: ns, configMaps: { settings: { color: 'green' }, added: { c: '3' } }, objects: [secret('creds', 'new-secret-value')] } } },
    ];
    const diff = await diffProject({ project, cluster, owner: 'hub' }, { generator: new MemoryGenerator(next), manager, sources });
    expect(diff.errors).toEqual([]);
    expect(diff.revision).toMatch(/^latest@sha256:[0-9a-f]{64}$/);
    const summary = diff.objects.map((o) => `${o.action} ${o.subject} ${o.instance}`).sort();
    expect(summary).toEqual([
      `changed ConfigMap/${ns}/settings ${ns}/web`,
      `changed Secret/${ns}/creds ${ns}/web`,
      `created ConfigMap/${ns}/added ${ns}/web`,
      `pruned ConfigMap/${ns}/legacy ${ns}/web`,
      `pruned ConfigMap/${ns}/side ${ns}/side`,
    ]);
    const settings = diff.objects.find((o) => o.subject.endsWith('/settings'))!;
    expect(settings.diff).toContain('-  color: blue\n+  color: green\n');
    const creds = diff.objects.find((o) => o.subject.startsWith('Secret/'))!;
    expect(creds.diff).toContain('+  password: "*** (after)"');
    expect(JSON.stringify(diff)).not.toMatch(/secret-value|bmV3LXNlY3JldC12YWx1ZQ|b2xkLXNlY3JldC12YWx1ZQ/);

    // nothing was applied or deleted
    expect((await live()).map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort()).toEqual(before);
    expect(await manager.client.getOptional({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'added' })).toBeUndefined();
  });

  it('counts unchanged objects and reports a component that cannot render, with the rest still diffed', async () => {
    const same: MemoryComponent[] = [
      { name: 'app', needs: [], wait: false, instances: { web: { namespace: ns, configMaps: { settings: { color: 'blue' }, legacy: { a: '1' } }, objects: [secret('creds', 'old-secret-value')] } } },
      { name: 'extra', needs: [], wait: false, instances: { side: { namespace: ns, configMaps: { side: { b: '2' } } } }, fail: { step: 'bundle', error: new Error('bundle.cue:3:1: conflicting values') } },
    ];
    const diff = await diffProject({ project, cluster, owner: 'hub' }, { generator: new MemoryGenerator(same), manager, sources });
    expect(diff.objects).toEqual([]);
    expect(diff.unchanged).toBe(3);
    expect(diff.errors).toEqual([{ component: 'extra', message: 'bundle.cue:3:1: conflicting values' }]);
  });

  it("reads nothing outside its tenant's namespaces: a Project outside is refused, an instance outside is that component's error", async () => {
    const other = await createTenant(manager.client, 'engine-diff-other');
    await manager.client.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'theirs', namespace: other }, data: { secret: 'of another team' } });
    const policy = { tenant: 'team-a', namespaces: [ns], serviceAccounts: ['deployer'] };
    const components: MemoryComponent[] = [
      { name: 'app', needs: [], wait: false, instances: { web: { namespace: ns, configMaps: { settings: { color: 'blue' } } } } },
      { name: 'intruder', needs: [], wait: false, instances: { spy: { namespace: other, configMaps: { theirs: { secret: 'changed' } } } } },
    ];
    const diff = await diffProject({ project: { ...project, policy }, cluster, owner: 'hub' }, { generator: new MemoryGenerator(components), manager, sources });
    expect(diff.errors).toEqual([{ component: 'intruder', message: `component intruder: instance spy would go to namespace "${other}", outside tenant "team-a"'s namespaces [${ns}] (rule: namespaces); nothing of the component was applied` }]);
    expect(diff.objects.filter((o) => o.subject.includes(`/${other}/`))).toEqual([]);
    const outside = { ...policy, namespaces: [other] };
    await expect(diffProject({ project: { ...project, policy: outside }, cluster, owner: 'hub' }, { generator: new MemoryGenerator(components), manager, sources })).rejects.toBeInstanceOf(TenantPolicyError);
  });

  it('throws a typed error when the project cannot load', async () => {
    const files = { 'other.cue': '' };
    await expect(diffProject({ project: { ...project, source: { ...project.source, path: 'missing.cue' } }, cluster, files }, { generator: new MemoryGenerator([]), manager, sources })).rejects.toBeInstanceOf(ProjectLoadError);
  });
});
