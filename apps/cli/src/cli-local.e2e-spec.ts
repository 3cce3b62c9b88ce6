import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { RegistryClient } from '@flotilla/oci';
import { shopProjectFiles } from '../../../test/e2e/fixtures/projects';
import { publishWebapp } from '../../../test/e2e/support/publish';
import { CliUser, expectNoStack } from '../test/run-cli';
import { writeTree } from '../../../test/e2e/support/file-tree';

// Issue 17, local commands: `project vet` and `project build` on a Project
// directory, no hub, modules pulled from the harness registry. A
// three-component Project (infra → app → worker) is the good case; broken
// ones must name every problem with file:line.

jest.setTimeout(120_000);

/** The e2e `shop` Project plus a third component, `worker`, that needs `app`. */
function threeComponents(moduleUrl: string, edit: (files: Record<string, string>) => void = () => undefined): string {
  const files = shopProjectFiles({ moduleUrl, moduleVersion: '1.0.0', namespace: 'shop', infra: ['db', 'cache'], message: 'hello' });
  files['project.cue'] = files['project.cue'].replace('\t\tapp: {', '\t\tworker: {\n\t\t\tbundle: ["./worker/bundle.cue"]\n\t\t\tneeds: ["app"]\n\t\t}\n\t\tapp: {');
  files['worker/bundle.cue'] = files['app/bundle.cue'].replace('name:       "app"', 'name:       "worker"').replace('instances: web:', 'instances: jobs:').replace('message: "hello"', 'message: "jobs"');
  edit(files);
  return writeTree(files);
}

describe('flotilla project vet and build, locally', () => {
  const user = new CliUser();
  let moduleUrl: string;

  beforeAll(async () => {
    moduleUrl = await publishWebapp(new RegistryClient());
  });

  it('vets a valid three-component Project and says how long it took', async () => {
    const dir = threeComponents(moduleUrl);
    const started = performance.now();
    const out = await user.ok(['project', 'vet', dir, '--cluster-name', 'dev', '--cluster-group', 'staging']);
    const ms = performance.now() - started;
    for (const line of ['infra/db (shop): 2 objects', 'infra/cache (shop): 2 objects', 'app/web (shop): 2 objects', 'worker/jobs (shop): 2 objects']) expect(out).toContain(line);
    expect(out).toMatch(/project shop is valid \(3 components, checked in [\d.]+m?s\)\n$/);
    // The figure the issue asks for, kept in the test log (a whole process: Node start, CUE wasm, module pull and builds).
    console.log(`project vet, three components, four instances: ${Math.round(ms)} ms wall clock for the whole command`);
  });

  it('builds the objects as YAML documents in dependency order, for the given cluster', async () => {
    const dir = threeComponents(moduleUrl);
    const out = await user.ok(['project', 'build', dir, '--cluster-name', 'prod-eu', '--cluster-group', 'production']);
    const docs = parseAllDocuments(out).map((d) => d.toJS() as { kind: string; metadata: { name: string; namespace: string }; data?: Record<string, string> });
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`)).toEqual([
      'ConfigMap/db-config', 'Deployment/db', 'ConfigMap/cache-config', 'Deployment/cache',
      'ConfigMap/web-config', 'Deployment/web', 'ConfigMap/jobs-config', 'Deployment/jobs',
    ]);
    expect(docs.find((d) => d.metadata.name === 'web-config')?.data).toEqual({ message: 'hello', cluster: 'prod-eu' });
    const json = JSON.parse(await user.ok(['project', 'build', dir, '--cluster-name', 'dev', '-o', 'json'])) as unknown[];
    expect(json).toHaveLength(8);
  });

  it('builds the same objects with the portable wasm evaluator (FLOTILLA_CUE_RUNTIME=wasm)', async () => {
    // The bundled CLI once started its wasm worker from source text that called a helper only the bundle had.
    const dir = threeComponents(moduleUrl);
    const native = await user.ok(['project', 'build', dir, '--cluster-name', 'dev', '-o', 'json']);
    const wasm = await user.ok(['project', 'build', dir, '--cluster-name', 'dev', '-o', 'json'], { env: { FLOTILLA_CUE_RUNTIME: 'wasm' } });
    expect(JSON.parse(wasm)).toEqual(JSON.parse(native));
    expect((JSON.parse(wasm) as unknown[]).length).toBe(8);
  });

  it('names every problem of a broken Project with file and line, exit 1', async () => {
    // Two components broken at once: a value the module's schema refuses, and a reference to nothing.
    const dir = threeComponents(moduleUrl, (files) => {
      files['app/bundle.cue'] = files['app/bundle.cue'].replace('replicas: 1', 'replicas: "two"');
      files['worker/bundle.cue'] = files['worker/bundle.cue'].replace('message: "jobs"', 'message: _undefined_message');
    });
    const r = await user.run(['project', 'vet', dir, '--cluster-name', 'dev']);
    expect(r.code).toBe(1);
    // The schema conflict is shown where the bundle sets the value, not in the module's template where CUE finds it.
    const line = readFileSync(join(dir, 'app', 'bundle.cue'), 'utf8').split('\n').findIndex((l) => l.includes('replicas: "two"')) + 1;
    expect(r.stderr).toMatch(new RegExp(`component app: instance web: ${dir}/app/bundle\\.cue:${line}:\\d+: values\\.replicas: conflicting values "two" and 1`));
    expect(r.stderr).toMatch(new RegExp(`component worker.*${dir}/worker/bundle\\.cue:\\d+`));
    expect(r.stderr).toMatch(/error: project in .* has \d+ problems\nfix the files named above/);
    expectNoStack(r.stderr);
    const built = await user.run(['project', 'build', dir, '--cluster-name', 'dev']);
    expect(built).toMatchObject({ code: 1, stdout: '', stderr: expect.stringMatching(/does not build \(\d+ problems\)/) });
  });

  it('points at the line of a syntax error in project.cue', async () => {
    const dir = threeComponents(moduleUrl, (files) => {
      files['project.cue'] = files['project.cue'].replace('name:       "shop"', 'name:       "shop\n\t\tbroken: {');
    });
    const r = await user.run(['project', 'vet', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`${dir}/project\\.cue:\\d+`));
    expectNoStack(r.stderr);
  });
});
