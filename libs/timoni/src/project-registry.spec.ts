import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { CueEngine, readFileTree } from '@flotilla/cue';
import { RegistryClient, defaultPushModuleOptions, parseReference, pullArtifact, pushArtifact, pushModule } from '@flotilla/oci';
import { harnessEnv } from '../../../test/harness/env';
import { ComponentBuilder, type ClusterTarget } from './component-build';
import { ModuleFetchError } from './errors';
import { ModuleBuilder } from './module-builder';
import { ModuleFetcher } from './module-fetch';
import { loadProject } from './project-load';
import { vetProjectArtifact } from './project-vet';
import { harnessReader, putObject } from './test-kube-reader';
import { TESTDATA, golden } from './test-support';

// Modules and projects pushed to the harness registry and built from there.
describe('projects and modules from the registry', () => {
  let cue: CueEngine;
  let client: RegistryClient;
  let workDir: string;
  let repo: string;
  let digests: Record<string, string>;
  const target = (cluster: string, group: string): ClusterTarget => ({
    cluster: { name: cluster, group },
    annotations: { 'runtime.timoni.sh/MODULE_REPO': repo, 'runtime.timoni.sh/MODULE_DIGEST': digests['2.0.0'] },
    reader: harnessReader(harnessEnv().kube),
  });
  const builders = () => {
    const fetcher = new ModuleFetcher(cue, client, { workDir });
    const builder = new ModuleBuilder(cue);
    return { fetcher, builder, components: new ComponentBuilder(cue, fetcher, builder) };
  };

  beforeAll(async () => {
    cue = await CueEngine.start({ poolSize: 2 });
    client = new RegistryClient();
    workDir = await mkdtemp(join(tmpdir(), 'timoni-spec-'));
    const host = harnessEnv().registry.host;
    repo = `oci://${host}/timoni-spec/${randomBytes(4).toString('hex')}/modules/app`;
    digests = {};
    for (const v of ['1.0.0', '2.0.0']) digests[v] = (await pushModule(client, repo, join(TESTDATA, 'modules', 'app'), defaultPushModuleOptions(v))).digest;
    const kube = harnessEnv().kube;
    await putObject(kube, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'flotilla-fleet' } }).catch(() => undefined);
    await putObject(kube, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'flotilla-fleet' }, data: { message: 'from the cluster' } });
  });
  afterAll(async () => {
    await cue.close();
    await rm(workDir, { recursive: true, force: true });
  });

  async function pushProject(name: string): Promise<string> {
    const url = `oci://${harnessEnv().registry.host}/timoni-spec/${randomBytes(4).toString('hex')}/projects/${name}`;
    await pushArtifact(client, url, join(TESTDATA, 'projects', name), { tags: ['1.0.0', 'staging'], contentType: 'generic', annotations: {} });
    return url;
  }

  it('pulls a project artifact and builds every component in plan order, matching the golden', async () => {
    const url = await pushProject('fleet');
    const dir = await mkdtemp(join(workDir, 'project-'));
    await pullArtifact(client, parseReference(`${url}:staging`), dir);
    const files = readFileTree(dir);
    const { project, plan } = await loadProject(cue, files, { path: 'project.cue' });
    expect(plan.groups).toEqual([['infra'], ['app']]);
    const { components } = builders();
    const out: Record<string, unknown> = {};
    for (const name of plan.order) {
      const c = await components.build(files, project.components.find((x) => x.name === name)!, target('k8s-prod-1', 'production'));
      for (const i of c.instances) out[`${name}/${i.instance}`] = { module: { ...i.module, repository: 'REPO', digest: Object.keys(digests).find((v) => digests[v] === i.module.digest) }, images: i.images, healthChecks: i.healthChecks, steps: i.steps };
    }
    const cm = (out['infra/cache'] as { steps: Array<{ objects: Array<{ data?: Record<string, string> }> }> }).steps[0].objects[0];
    expect(cm.data!.message).toBe('from the cluster');
    expect(out['app/web']).toMatchObject({ module: { name: 'flotilla.test/app', version: '2.0.0', digest: '2.0.0' } });
    expect(out['app/api']).toMatchObject({ module: { version: '2.0.0' } });
    const pretty = `${JSON.stringify(out, null, 2)}\n`;
    expect(pretty).toBe(golden('fleet-production.json', pretty));
  });

  it('builds once per distinct input across clusters of a group, and shares module pulls', async () => {
    const url = await pushProject('fleet');
    const dir = await mkdtemp(join(workDir, 'project-'));
    await pullArtifact(client, parseReference(url.replace(/$/, ':1.0.0')), dir);
    const files = readFileTree(dir);
    const { project } = await loadProject(cue, files, { path: 'project.cue' });
    const app = project.components.find((c) => c.name === 'app')!;
    const { builder, components, fetcher } = builders();
    const results = await Promise.all(['a', 'b', 'c', 'd'].map((n) => components.build(files, app, target(`cluster-${n}`, 'staging'))));
    expect(results.map((r) => r.instances[0].steps[0].objects[1].spec)).toEqual(Array(4).fill(expect.objectContaining({ replicas: 1 })));
    expect(builder.stats()).toMatchObject({ misses: 2 });
    expect(builder.stats().hits + builder.stats().joins).toBe(6);
    // web pins 2.0.0's digest and api asks for the 2.0.0 tag: one manifest, one pull
    expect(fetcher.pullCount).toBe(1);
    await components.build(files, app, target('cluster-e', 'production'));
    expect(builder.stats().misses).toBe(3);
    // callers get their own copies
    results[0].instances[0].steps[0].objects[0].metadata.name = 'changed';
    expect(results[1].instances[0].steps[0].objects[0].metadata.name).not.toBe('changed');
  });

  it('refuses a module whose digest differs from its pin', async () => {
    const { fetcher } = builders();
    const err = await fetcher.fetch({ url: repo, version: '1.0.0', digest: digests['2.0.0'] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModuleFetchError);
    expect((err as Error).message).toContain(digests['2.0.0']);
    const byDigest = await fetcher.fetch({ url: repo, version: `@${digests['1.0.0']}` });
    expect(byDigest.ref).toMatchObject({ version: '1.0.0', digest: digests['1.0.0'] });
    // tags are resolved on every fetch (one HEAD), trees are kept by digest
    await fetcher.fetch({ url: repo, version: '1.0.0' });
    expect(fetcher.pullCount).toBe(1);
  });

  it('vets a whole project artifact for one cluster, aggregating every error with file:line', async () => {
    const url = await pushProject('fleet-broken');
    const { components } = builders();
    const report = await vetProjectArtifact(cue, components, client, `${url}:staging`, target('k8s-prod-1', 'production'));
    expect(report.ok).toBe(false);
    expect(report.digest).toMatch(/^sha256:/);
    expect(report.plan!.groups).toEqual([['web', 'infra'], ['app']]);
    const lines = report.issues.map((i) => `${i.subject} | ${i.file ?? ''}:${i.line ?? ''} | ${i.message}`);
    expect(lines.length).toBeLessThan(15);
    expect(lines.filter((l) => l.includes('empty disjunction'))).toEqual([]);
    expect(lines[0]).toMatch(/^component web \| web\/bundle\.cue:5 \| .*url/);
    expect(lines[1]).toMatch(/^component infra: instance cache \| : \| .*9\.9\.9.*manifest unknown/);
    expect(lines[2]).toMatch(/^component app: instance web: values \| : \| .*incompatible list lengths/);
    // A value the module refuses is shown where the bundle sets it (line 19), not in the module's template.
    expect(lines[3]).toMatch(/^component app: instance api \| app\/bundle\.cue:19 \| values\.replicas: conflicting values 1 and -3/);
    expect(lines[4]).toMatch(/^component app: instance api \| app\/bundle\.cue:19 \| values\.replicas: invalid value -3/);
  });
});
