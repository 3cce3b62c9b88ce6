// What ships is dist/, compiled by tsc to CommonJS; Jest runs the sources
// through swc, which compiles some code differently (a local `exports` once
// broke every build without a kube version in dist only). This spec runs the
// same builds in a plain Node process on dist/ (made by `npm run build`,
// which `npm test` runs first) and expects what the sources give here.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CueEngine, readFileTree, type FileTree } from '@flotilla/cue';
import { RegistryClient } from '@flotilla/oci';
import { ComponentBuilder } from './component-build';
import { buildModule } from './module-build';
import { ModuleBuilder } from './module-builder';
import { ModuleFetcher } from './module-fetch';
import { vetProject } from './project-vet';
import { TESTDATA, localModule } from './test-support';

const DIST = join(__dirname, '..', '..', '..', 'dist', 'libs');

// Runs in the child on dist/: a build with no kube version and an empty
// module version, and a vet of a project for a cluster without one.
const PROBE = `
const { CueEngine, readFileTree } = require(${JSON.stringify(join(DIST, 'cue/src/index.js'))});
const { RegistryClient } = require(${JSON.stringify(join(DIST, 'oci/src/index.js'))});
const t = require(${JSON.stringify(join(DIST, 'timoni/src/index.js'))});
(async () => {
  const cue = await CueEngine.start({ poolSize: 1, warmup: false });
  try {
    const tree = readFileTree(${JSON.stringify(join(TESTDATA, 'modules', 'app'))});
    const module = { tree, treeHash: t.hashTree(tree), ref: { name: 'flotilla.test/app', repository: 'file://app', version: '', digest: 'unknown' } };
    const build = await t.buildModule(cue, { instance: 'web', namespace: 'default', module, values: [] });
    const components = new t.ComponentBuilder(cue, new t.ModuleFetcher(cue, new RegistryClient()), new t.ModuleBuilder(cue));
    const vet = await t.vetProject(cue, components, readFileTree(${JSON.stringify(TESTDATA)}), { cluster: { name: 'k1', group: 'staging' } }, { path: 'projects/diamond/project.cue' });
    process.stdout.write(JSON.stringify({ build: summary(build), vet: { ok: vet.ok, issues: vet.issues, built: Object.fromEntries(Object.entries(vet.built).map(([k, v]) => [k, v.map(summary)])) } }));
  } finally {
    await cue.close();
  }
})().catch((err) => { process.stderr.write(String(err && err.stack || err)); process.exit(1); });
function summary(b) { return { kubeVersion: b.kubeVersion, moduleVersion: b.moduleVersion, steps: b.steps, values: b.values }; }
`;

interface BuildSummary {
  kubeVersion: string;
  moduleVersion: string;
  steps: unknown;
  values: string;
}

const summary = (b: BuildSummary): BuildSummary => ({ kubeVersion: b.kubeVersion, moduleVersion: b.moduleVersion, steps: b.steps, values: b.values });

describe('the compiled dist/ builds as the sources do', () => {
  let cue: CueEngine;
  let files: FileTree;
  beforeAll(async () => {
    cue = await CueEngine.start({ poolSize: 1 });
    files = readFileTree(TESTDATA);
  });
  afterAll(() => cue.close());

  it('builds without a kube version or module version, and vets a project', async () => {
    if (!existsSync(join(DIST, 'timoni/src/index.js'))) throw new Error(`${DIST} is missing: run npm run build first (npm test does)`);
    const child = spawnSync(process.execPath, ['-e', PROBE], { encoding: 'utf8', timeout: 180_000 });
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    const shipped = JSON.parse(child.stdout) as { build: BuildSummary; vet: { ok: boolean; issues: unknown[]; built: Record<string, BuildSummary[]> } };

    const app = await localModule(cue, 'app', '');
    app.ref.name = 'flotilla.test/app';
    const build = await buildModule(cue, { instance: 'web', namespace: 'default', module: app, values: [] });
    const components = new ComponentBuilder(cue, new ModuleFetcher(cue, new RegistryClient()), new ModuleBuilder(cue));
    const vet = await vetProject(cue, components, files, { cluster: { name: 'k1', group: 'staging' } }, { path: 'projects/diamond/project.cue' });

    expect(shipped.build).toMatchObject({ kubeVersion: '1.36.3', moduleVersion: '0.0.0-devel' });
    expect(shipped.build).toEqual(summary(build));
    expect(shipped.vet.issues).toEqual([]);
    expect(shipped.vet.ok).toBe(true);
    expect(shipped.vet.built).toEqual(Object.fromEntries(Object.entries(vet.built).map(([k, v]) => [k, v.map(summary)])));
  }, 240_000);
});
