import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CueEngineError, CueEvaluationError, CueInputError } from './errors';
import { stringifyExactJson } from '@flotilla/json';
import { reachableFiles, toGoFile, toGoFiles, toRawGoFiles } from './files';
import { defaultCueEngineOptions, type CueEngineOptions } from './options';
import type {
  AttributeField,
  CallOptions,
  CueDiagnostic,
  EvaluateRequest,
  EvaluateResult,
  ExpressionRequest,
  ExpressionResult,
  ListAttributesRequest,
  MergeValuesRequest,
  MergeValuesResult,
  ModuleImage,
  ModuleImagesRequest,
  ValuesOriginsRequest,
  CuePosition,
  RewriteFieldsRequest,
} from './types';
import { NativeRunnerFactory } from './native-runner';
import type { CueRunnerFactory } from './runner';
import { WasmRunnerFactory } from './wasm-runner';
import { withMemoryMaximum } from './wasm-memory';
import { webAssembly, type WasmModule } from './wasm-types';
import { locateNativeHelper, locateWasmDir } from './wasm-location';
import { WorkerPool, type PoolEvent, type PoolStats } from './worker-pool';

// Touches the code paths of a module build: loader, imports from cue.mod,
// tags, definitions with defaults and disjunctions, comprehensions,
// interpolation, std, validation and JSON export.
const WARMUP: EvaluateRequest = {
  files: {
    'cue.mod/module.cue': 'module: "flotilla.local/warmup"\nlanguage: version: "v0.17.1"\n',
    'cue.mod/gen/k8s.io/api/core/v1/t.cue': [
      'package v1',
      '#Meta: {name!: string & =~"^[a-z0-9-]+$", namespace?: string, labels?: [string]: string}',
      '#Container: {name!: string, image!: string, ports?: [...{containerPort!: int & >0 & <65536, protocol: *"TCP" | "UDP"}]}',
      '#Deployment: {apiVersion: "apps/v1", kind: "Deployment", metadata: #Meta, spec: {replicas: int & >=0, template: spec: containers: [...#Container]}}',
      '#ConfigMap: {apiVersion: "v1", kind: "ConfigMap", metadata: #Meta, data?: [string]: string}',
      '',
    ].join('\n'),
    'main.cue': [
      'package main',
      'import (',
      '\t"strings"',
      '\tcorev1 "k8s.io/api/core/v1"',
      ')',
      'instance: string @tag(name)',
      '#Config: {replicas: *2 | int & >0, image: string | *"app:1", level: *"info" | "debug"}',
      'config: #Config & {level: "debug"}',
      'objects: {',
      '\tfor i in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] {',
      '\t\t"cm-\\(i)": corev1.#ConfigMap & {metadata: {name: "\\(instance)-\\(i)", labels: app: instance}, data: level: strings.ToUpper(config.level)}',
      '\t\t"deploy-\\(i)": corev1.#Deployment & {metadata: name: "\\(instance)-\\(i)", spec: {replicas: config.replicas, template: spec: containers: [{name: "c", image: config.image, ports: [{containerPort: 8000 + i}]}]}}',
      '\t}',
      '}',
      'apply: app: [for o in objects {o}]',
      '',
    ].join('\n'),
  },
  tags: { name: 'warmup' },
  checks: [{ path: 'config', concrete: true, final: true }],
  exports: [{ path: 'apply', fields: true, yamlCompat: true }],
};

const WARMUP_ROUNDS = 4;

interface GoResponse<T> {
  ok: boolean;
  result?: T;
  errors?: CueDiagnostic[];
}

/**
 * The official CUE evaluator (cuelang.org/go compiled to WebAssembly) behind
 * a pool of worker threads. Every call is self-contained: it carries the
 * file tree CUE may see and gets back data or a typed error.
 */
export class CueEngine {
  private constructor(
    private readonly pool: WorkerPool,
    private readonly options: CueEngineOptions,
  ) {}

  /** Milliseconds start() took: wasm compile, workers up, warm-up if asked. */
  startMs = 0;

  /** Where CUE runs: native helper processes or cue.wasm in worker threads. */
  runtime: 'native' | 'wasm' = 'wasm';

  /** Why 'auto' fell back to wasm, if it did (for the log). */
  fallbackReason?: string;

  /**
   * Starts the pool on the runtime the options choose (native helpers, else
   * cue.wasm compiled once) and waits until every worker is up and, if asked, warm.
   */
  static async start(options: Partial<CueEngineOptions> = {}): Promise<CueEngine> {
    const t0 = performance.now();
    const opts: CueEngineOptions = { ...defaultCueEngineOptions(), ...options };
    if (!(opts.poolSize >= 1)) throw new CueEngineError(`poolSize must be at least 1, got ${opts.poolSize}`);
    if (!(opts.quarantineMs >= 0)) throw new CueEngineError(`quarantineMs must be at least 0, got ${opts.quarantineMs}`);
    const dir = locateWasmDir(opts.wasmDir);
    let pool: WorkerPool | undefined;
    let runtime: 'native' | 'wasm' = 'wasm';
    let fallback: string | undefined;
    if (opts.runtime !== 'wasm') {
      const helper = locateNativeHelper(dir);
      if (helper) {
        try {
          pool = await startPool(opts, new NativeRunnerFactory(opts, helper));
          runtime = 'native';
        } catch (err) {
          if (opts.runtime === 'native') throw err;
          fallback = (err as Error).message;
        }
      } else if (opts.runtime === 'native') {
        throw new CueEngineError(`CUE engine not built for this host: ${join(dir, 'cue-native')} is missing; run npm run build`);
      } else {
        fallback = `${join(dir, 'cue-native')} is missing`;
      }
    }
    pool ??= await startPool(opts, await wasmRunners(opts, dir));
    const engine = new CueEngine(pool, opts);
    engine.runtime = runtime;
    engine.fallbackReason = fallback;
    if (opts.warmup) {
      try {
        // Repeated so V8's dynamic tiering optimizes the hot functions too.
        for (let i = 0; i < WARMUP_ROUNDS; i++) {
          await Promise.all(Array.from({ length: opts.poolSize }, () => engine.evaluate(WARMUP)));
        }
      } catch (err) {
        await pool.close();
        throw new CueEngineError(`the CUE engine failed its warm-up evaluation: ${(err as Error).message}`, { cause: err });
      }
    }
    engine.startMs = performance.now() - t0;
    return engine;
  }

  /** Loads a package (or `entries`) from the tree, fills, checks and exports. */
  evaluate(req: EvaluateRequest, call: CallOptions = {}): Promise<EvaluateResult> {
    const payload = {
      files: toRawGoFiles(reachableFiles(req.files, req.entries)),
      dir: req.dir,
      package: req.package,
      entries: req.entries,
      tags: req.tags,
      tagVars: req.tagVars,
      buildTags: req.buildTags,
      fills: req.fills?.map((f) => ({ path: f.path, json: f.json === undefined ? undefined : stringifyExactJson(f.json), cue: f.cue })),
      checks: req.checks,
      exports: req.exports,
    };
    return this.run<EvaluateResult>('evaluate', payload, call);
  }

  /** Timoni's values merge (§2.3): overlays laid over the base, result as CUE text. */
  mergeValues(req: MergeValuesRequest, call: CallOptions = {}): Promise<MergeValuesResult> {
    const payload = {
      base: toGoFile(req.base.path, req.base.content),
      overlays: req.overlays?.map((o) => toGoFile(o.path, o.content)),
      selector: req.selector,
    };
    return this.run<MergeValuesResult>('mergeValues', payload, call);
  }

  /**
   * The images a module declares in images.cue, compiled on its own: every
   * struct under `values` with a `repository` and a `tag` or `digest`, in
   * field order (callers sort them). Non-concrete fields without a default fail.
   */
  moduleImages(req: ModuleImagesRequest, call: CallOptions = {}): Promise<ModuleImage[]> {
    return this.run<ModuleImage[]>('moduleImages', { file: toGoFile(req.file.path, req.file.content) }, call);
  }

  /**
   * Where the fields at these positions of the generated values file were
   * set: the last values file defining their path, else the base; `file` is
   * empty where none does. Lets errors point at the file the user wrote.
   */
  valuesOrigins(req: ValuesOriginsRequest, call: CallOptions = {}): Promise<CuePosition[]> {
    const payload = {
      base: toGoFile(req.base.path, req.base.content),
      overlays: req.overlays?.map((o) => toGoFile(o.path, o.content)),
      selector: req.selector,
      overlay: toGoFile(req.overlay.path, req.overlay.content),
      positions: req.positions.map((p) => ({ file: '', line: p.line, column: p.column })),
      origins: req.overlays?.some((o) => o.origin)
        ? req.overlays.map((o) => (o.origin ? { files: toGoFiles(o.origin.files), entries: o.origin.entries, path: o.origin.path } : null))
        : undefined,
    };
    return this.run<CuePosition[]>('valuesOrigins', payload, call);
  }

  /** Fields carrying `@<name>(...)`, found in the sources (no evaluation). */
  listAttributes(req: ListAttributesRequest, call: CallOptions = {}): Promise<AttributeField[]> {
    return this.run<AttributeField[]>('listAttributes', { files: toRawGoFiles(req.files), name: req.name }, call);
  }

  /** Replaces field values in one file's source, keeping labels and markers; returns the new text. */
  async rewriteFields(req: RewriteFieldsRequest, call: CallOptions = {}): Promise<string> {
    const payload = { file: toGoFile(req.path, req.content), replacements: req.replacements };
    const res = await this.run<{ text: string }>('rewriteFields', payload, call);
    return res.text;
  }

  /** Evaluates an expression with names bound to JSON values (Timoni's runtime `for`). */
  evalExpression(req: ExpressionRequest, call: CallOptions = {}): Promise<ExpressionResult> {
    const bindings: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.bindings ?? {})) bindings[k] = stringifyExactJson(v);
    return this.run<ExpressionResult>('evalExpression', { expression: req.expression, bindings }, call);
  }

  stats(): PoolStats {
    return this.pool.stats();
  }

  /** Calls `listener` when a call starts on a worker or hits a limit; returns the unsubscribe. */
  observe(listener: (e: PoolEvent) => void): () => void {
    return this.pool.observe(listener);
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private async run<T>(op: string, payload: unknown, call: CallOptions): Promise<T> {
    const raw = await this.pool.call(op, payload, call.timeoutMs ?? this.options.timeoutMs, call.tenant);
    const res = JSON.parse(raw) as GoResponse<T>;
    if (res.ok) return res.result as T;
    const errors = res.errors ?? [];
    if (errors.some((e) => e.kind === 'internal')) {
      throw new CueEngineError(`${op}: ${errors.map((e) => e.message).join('; ')}`);
    }
    if (errors.some((e) => e.kind === 'input')) throw new CueInputError(op, errors);
    throw new CueEvaluationError(op, errors);
  }
}

async function wasmRunners(opts: CueEngineOptions, dir: string): Promise<CueRunnerFactory> {
  const bytes = withMemoryMaximum(readFileSync(join(dir, 'cue.wasm')), opts.memoryLimitBytes);
  let module: WasmModule;
  try {
    module = await webAssembly().compile(bytes);
  } catch (err) {
    throw new CueEngineError(`compiling ${join(dir, 'cue.wasm')} failed`, { cause: err });
  }
  return new WasmRunnerFactory(opts, module, readFileSync(join(dir, 'wasm_exec.js'), 'utf8'));
}

async function startPool(opts: CueEngineOptions, runners: CueRunnerFactory): Promise<WorkerPool> {
  const pool = new WorkerPool(opts, runners);
  try {
    await pool.start();
  } catch (err) {
    await pool.close();
    throw err;
  }
  return pool;
}
