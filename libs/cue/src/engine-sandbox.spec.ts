import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCgroupMemoryLimit } from './cgroup-memory';
import { CueEngine } from './engine';
import { CueEvaluationError, CueInputError, CueMemoryLimitError } from './errors';
import { cueMemoryBudget } from './memory-budget';
import { webappTree } from './test-support';

// CUE sees only the tree of each call: no host files, environment or registry.
describe('CueEngine sandbox', () => {
  let engine: CueEngine;
  beforeAll(async () => {
    engine = await CueEngine.start({ poolSize: 1 });
  });
  afterAll(() => engine.close());

  async function failure(req: Parameters<CueEngine['evaluate']>[0]): Promise<Error> {
    return engine.evaluate(req).then(
      () => {
        throw new Error('expected the evaluation to fail');
      },
      (e: Error) => e,
    );
  }

  it('cannot embed a host file', async () => {
    const files = webappTree();
    files['templates/leak.cue'] = '@extern(embed)\n\npackage templates\n\nleak: _ @embed(file="../../../../../etc/hostname", type=text)\n';
    const err = await failure({ files, dir: 'templates', exports: [{ path: 'leak' }] });
    expect(err).toBeInstanceOf(CueEvaluationError);
    expect((err as CueEvaluationError).diagnostics[0]).toMatchObject({ file: 'templates/leak.cue', line: 5 });
  });

  it('does not see host directories as packages', async () => {
    const err = await failure({ files: { 'a.cue': 'package main\nx: 1\n' }, dir: 'etc' });
    expect(err.message).toMatch(/no CUE files|cannot find package|not found/i);
  });

  it('offers no tag variables beyond the ones given (no hostname, cwd, env)', async () => {
    const files = { 'a.cue': 'package main\nh: string @tag(h, var=hostname)\n' };
    const err = await failure({ files, tagVars: { moduleVersion: '1.0.0' }, exports: [{ path: 'h' }] });
    expect(err.message).toContain("tag variable 'hostname' not found");
  });

  it('resolves imports and @embed from the tree when loading standalone files with a cue.mod', async () => {
    const tree = webappTree();
    tree['0.bundle.cue'] = [
      '@extern(embed)',
      '',
      'package bundle',
      '',
      'import corev1 "k8s.io/api/core/v1"',
      '',
      'cm: corev1.#ConfigMap & {metadata: name: "x", data: conf: _conf}',
      '_conf: _ @embed(file=templates/files/app.conf, type=text)',
      '',
    ].join('\n');
    const res = await engine.evaluate({ files: tree, entries: ['0.bundle.cue'], exports: [{ path: 'cm.kind' }, { path: 'cm.data.conf' }] });
    expect(res.exports[0].json).toBe('"ConfigMap"');
    expect(JSON.parse(res.exports[1].json!)).toContain('listen = 0.0.0.0');
  });

  it('rejects absolute paths in the tree', async () => {
    const err = await failure({ files: { '/etc/x.cue': 'x: 1' } });
    expect(err).toBeInstanceOf(CueInputError);
  });
});

// A container's memory limit bounds what content can make CUE take: the pool
// sized from a cgroup fixture stops a runaway evaluation at its per-worker
// cap with a typed error, and this process goes on.
describe.each(['native', 'wasm'] as const)('CueEngine sized from the cgroup (%s)', (runtime) => {
  const MiB = 1048576;
  let root: string;
  let engine: CueEngine;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'cgroup-'));
    writeFileSync(join(root, 'memory.max'), `${640 * MiB}\n`);
    const budget = cueMemoryBudget({ limitBytes: readCgroupMemoryLimit(root), cpus: 2, reserveBytes: 128 * MiB });
    engine = await CueEngine.start({ ...budget, runtime });
  });
  afterAll(async () => {
    await engine?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('fails content that would outgrow a worker with CueMemoryLimitError, then evaluates again', async () => {
    expect(engine.runtime).toBe(runtime);
    expect(engine.stats().size).toBe(2);
    // a list of 50 million strings: gigabytes if it were allowed to materialize
    const hog = { files: { 'a.cue': 'package main\nimport "list"\nbig: [for i in list.Range(0, 50000000, 1) {"item-\\(i)"}]\n' }, exports: [{ path: 'big' }] };
    const err = await engine.evaluate(hog, { timeoutMs: 110_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CueMemoryLimitError);
    // the cap the cgroup's limit gave each worker: 640 MiB less the reserve, over two workers, less heap and overhead
    expect((err as Error).message).toContain('exceeded the memory cap of 144 MiB');
    const res = await engine.evaluate({ files: { 'a.cue': 'package main\nx: 1 + 1\n' }, exports: [{ path: 'x' }] });
    expect(res.exports[0].json).toBe('2');
  }, 120_000);
});
