import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CueEngine } from './engine';
import { parseOrderedJson } from './ordered-json';
import { golden, INSTANCE_TAGS, TAG_VARS, TESTDATA, webappTree } from './test-support';
import type { FileTree } from './types';

// A module build the way libs/timoni will do it (TIMONI-FORMATS §2.2).
describe('CueEngine.evaluate on a Timoni-style module', () => {
  let engine: CueEngine;
  beforeAll(async () => {
    engine = await CueEngine.start({ poolSize: 2 });
  });
  afterAll(() => engine.close());

  async function withMergedValues(tree: FileTree): Promise<FileTree> {
    const merged = await engine.mergeValues({
      base: { path: 'values.cue', content: tree['values.cue'] },
      overlays: [
        { path: 'shop.cue', content: readFileSync(join(TESTDATA, 'values', 'shop.cue')) },
        { path: 'image.yaml', content: readFileSync(join(TESTDATA, 'values', 'image.yaml')) },
      ],
    });
    return { ...tree, 'values.cue': `package main\n\nvalues: ${merged.cue}\n` };
  }

  it('builds the instance with tags, tag vars, schema and values overlays, matching the golden apply steps', async () => {
    const tree = await withMergedValues(webappTree());
    const res = await engine.evaluate({
      files: tree,
      tags: INSTANCE_TAGS,
      tagVars: TAG_VARS,
      checks: [{ path: 'timoni.instance', concrete: true, final: true }],
      exports: [
        { path: 'timoni.apply', fields: true },
        { path: 'timoni.instance.config.image.reference' },
        { path: 'timoni.healthChecks', optional: true },
      ],
    });
    const [apply, image, health] = res.exports;
    expect(apply.fields!.map((f) => f.label)).toEqual(['app', 'test']);
    const objects = apply.fields!.flatMap((f) => JSON.parse(f.json!) as Array<{ kind: string; metadata: { name: string } }>);
    expect(objects.length).toBeGreaterThanOrEqual(13);
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toContain('Deployment/shop-pdf');
    expect(JSON.parse(image.json!)).toBe('ghcr.io/flotilla/webapp:1.5.0@sha256:1111111111111111111111111111111111111111111111111111111111111111');
    expect(health.exists).toBe(false);
    const pretty = JSON.stringify(JSON.parse(apply.json!), null, 2) + '\n';
    expect(pretty).toBe(golden('webapp-apply.json', pretty));
  });

  it('keeps CUE field order, including integer-like labels, for ordered consumers', async () => {
    const res = await engine.evaluate({
      files: { 'steps.cue': 'package main\napply: {"10": [1], app: [2], "2": [3], addons: [4]}\n' },
      exports: [{ path: 'apply', fields: true }],
    });
    expect(res.exports[0].fields!.map((f) => f.label)).toEqual(['10', 'app', '2', 'addons']);
    const ordered = parseOrderedJson(res.exports[0].json!) as Map<string, unknown>;
    expect([...ordered.keys()]).toEqual(['10', 'app', '2', 'addons']);
  });

  it('drops the conditional test step and embeds files from the tree', async () => {
    const res = await engine.evaluate({
      files: webappTree(),
      tags: INSTANCE_TAGS,
      tagVars: TAG_VARS,
      exports: [{ path: 'timoni.apply', fields: true }],
    });
    expect(res.exports[0].fields!.map((f) => f.label)).toEqual(['app']);
    const app = JSON.parse(res.exports[0].fields![0].json!) as Array<{ kind: string; data?: Record<string, string> }>;
    expect(app.map((o) => o.kind)).toEqual(['ServiceAccount', 'ConfigMap', 'Service', 'Deployment']);
    expect(app[1].data!['app.conf']).toBe(readFileSync(join(TESTDATA, 'webapp', 'templates', 'files', 'app.conf'), 'utf8'));
  });

  it('selects @if(debug) files with the debug build tag', async () => {
    const res = await engine.evaluate({
      files: webappTree(),
      tags: INSTANCE_TAGS,
      tagVars: TAG_VARS,
      buildTags: ['debug'],
      exports: [{ path: 'timoni.instance.config.image.tag' }, { path: 'timoni.apply', fields: true }],
    });
    expect(JSON.parse(res.exports[0].json!)).toBe('1.4.2-debug');
    expect(res.exports[1].fields!.map((f) => f.label)).toEqual(['app', 'test']);
  });

  it('fills values from JSON and validates them against the #Config schema', async () => {
    const res = await engine.evaluate({
      files: webappTree(),
      tags: INSTANCE_TAGS,
      tagVars: TAG_VARS,
      fills: [{ path: 'values', json: { replicas: 5, workers: [{ name: 'mail' }] } }],
      checks: [{ path: 'timoni.instance.config', concrete: true }],
      exports: [{ path: 'timoni.instance.config.replicas' }, { path: 'timoni.instance.objects', fields: true }],
    });
    expect(res.exports[0].json).toBe('5');
    // CUE places the `if`-guarded field by evaluation order, so compare as a set.
    expect(res.exports[1].fields!.map((f) => f.label).sort()).toEqual(['cm', 'deploy', 'mail-cm', 'mail-deploy', 'mail-svc', 'sa', 'svc']);
  });

  it('loads a chosen package directory and exports CUE syntax', async () => {
    const res = await engine.evaluate({
      files: webappTree(),
      dir: 'templates',
      exports: [{ path: '#Config.logLevel', format: 'cue' }],
    });
    expect(res.exports[0].cue).toBe('*"info" | "debug" | "warn" | "error"');
  });

  it('loads standalone files (CUE, JSON, YAML) as one package', async () => {
    const res = await engine.evaluate({
      files: {
        '0.bundle.cue': 'bundle: {apiVersion: "v1alpha1", name: "shop", _secret: "s3"}\nbundle: instances: a: values: key: bundle._secret\n',
        '1.extra.json': '{"bundle": {"instances": {"a": {"namespace": "apps"}}}}',
        '2.more.yaml': 'bundle:\n  instances:\n    b:\n      namespace: web\n',
      },
      entries: ['0.bundle.cue', '1.extra.json', '2.more.yaml'],
      exports: [{ path: 'bundle' }],
    });
    expect(JSON.parse(res.exports[0].json!)).toEqual({
      apiVersion: 'v1alpha1',
      name: 'shop',
      instances: { a: { values: { key: 's3' }, namespace: 'apps' }, b: { namespace: 'web' } },
    });
  });

  it('renders bytes as text and integral floats as integers with yamlCompat', async () => {
    const files = { 'a.cue': "package main\nobj: {data: 'hi there', ratio: 2.0, half: 0.5}\n" };
    const plain = await engine.evaluate({ files, exports: [{ path: 'obj' }] });
    const compat = await engine.evaluate({ files, exports: [{ path: 'obj', yamlCompat: true }] });
    expect(plain.exports[0].json).toBe('{"data":"aGkgdGhlcmU=","ratio":2.0,"half":0.5}');
    expect(compat.exports[0].json).toBe('{"data":"hi there","ratio":2,"half":0.5}');
  });

  it('reports a missing optional export as absent', async () => {
    const res = await engine.evaluate({ files: { 'a.cue': 'package main\nx: 1\n' }, exports: [{ path: 'y', optional: true }] });
    expect(res.exports[0]).toEqual({ path: 'y', exists: false });
  });
});

describe('CueEngine.start with warm-up', () => {
  it('runs the warm-up build on every worker and is ready afterwards', async () => {
    const engine = await CueEngine.start({ poolSize: 1, warmup: true });
    try {
      expect(engine.startMs).toBeGreaterThan(0);
      expect(engine.stats()).toMatchObject({ size: 1, ready: 1, busy: 0, replaced: 0 });
      const res = await engine.evaluate({ files: { 'a.cue': 'package main\nx: "ok"\n' }, exports: [{ path: 'x' }] });
      expect(res.exports[0].json).toBe('"ok"');
    } finally {
      await engine.close();
    }
  });
});

describe('CueEngine and the process lifetime', () => {
  it('lets a script exit without close() once its calls are done', () => {
    // Idle workers are unref'd; a busy worker and its timeout timer keep the process up.
    const dir = mkdtempSync(join(tmpdir(), 'cue-exit-'));
    const script = join(dir, 'exit.ts');
    writeFileSync(
      script,
      `import { CueEngine } from ${JSON.stringify(join(__dirname, 'index'))};
void CueEngine.start({ poolSize: 1 })
  .then((e) => e.evaluate({ files: { 'a.cue': 'package main\\nx: 7' }, exports: [{ path: 'x' }] }))
  .then((r) => console.log('result', r.exports[0].json));
`,
    );
    try {
      // The timeout only ends a child that never exits (then status is null); it is no speed goal.
      const res = spawnSync(process.execPath, [join(__dirname, '..', '..', '..', 'scripts', 'run-ts.mjs'), script], { encoding: 'utf8', timeout: 50_000 });
      expect(res.stdout).toContain('result 7');
      expect(res.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
