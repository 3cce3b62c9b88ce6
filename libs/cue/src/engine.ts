import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CueEngineError, CueEvaluationError, CueInputError } from './errors';
import { toGoFile, toGoFiles } from './files';
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
  RewriteFieldsRequest,
} from './types';
import { withMemoryMaximum } from './wasm-memory';
import { webAssembly, type WasmModule } from './wasm-types';
import { locateWasmDir } from './wasm-location';
import { WorkerPool, type PoolStats } from './worker-pool';

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
    /** Milliseconds from start() until every worker was warm. */
    readonly startMs: number,
  ) {}

  /** Compiles the wasm once, starts the pool and waits until every worker is warm. */
  static async start(options: Partial<CueEngineOptions> = {}): Promise<CueEngine> {
    const t0 = performance.now();
    const opts: CueEngineOptions = { ...defaultCueEngineOptions(), ...options };
    if (!(opts.poolSize >= 1)) throw new CueEngineError(`poolSize must be at least 1, got ${opts.poolSize}`);
    const dir = locateWasmDir(opts.wasmDir);
    const bytes = withMemoryMaximum(readFileSync(join(dir, 'cue.wasm')), opts.memoryLimitBytes);
    let module: WasmModule;
    try {
      module = await webAssembly().compile(bytes);
    } catch (err) {
      throw new CueEngineError(`compiling ${join(dir, 'cue.wasm')} failed`, { cause: err });
    }
    const pool = new WorkerPool(opts, module, readFileSync(join(dir, 'wasm_exec.js'), 'utf8'));
    try {
      await pool.start();
    } catch (err) {
      await pool.close();
      throw err;
    }
    return new CueEngine(pool, opts, performance.now() - t0);
  }

  /** Loads a package (or `entries`) from the tree, fills, checks and exports. */
  evaluate(req: EvaluateRequest, call: CallOptions = {}): Promise<EvaluateResult> {
    const payload = {
      files: toGoFiles(req.files),
      dir: req.dir,
      package: req.package,
      entries: req.entries,
      tags: req.tags,
      tagVars: req.tagVars,
      buildTags: req.buildTags,
      fills: req.fills?.map((f) => ({ path: f.path, json: f.json === undefined ? undefined : JSON.stringify(f.json), cue: f.cue })),
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

  /** Fields carrying `@<name>(...)`, found in the sources (no evaluation). */
  listAttributes(req: ListAttributesRequest, call: CallOptions = {}): Promise<AttributeField[]> {
    return this.run<AttributeField[]>('listAttributes', { files: toGoFiles(req.files), name: req.name }, call);
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
    for (const [k, v] of Object.entries(req.bindings ?? {})) bindings[k] = JSON.stringify(v);
    return this.run<ExpressionResult>('evalExpression', { expression: req.expression, bindings }, call);
  }

  stats(): PoolStats {
    return this.pool.stats();
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private async run<T>(op: string, payload: unknown, call: CallOptions): Promise<T> {
    const raw = await this.pool.call(op, payload, call.timeoutMs ?? this.options.timeoutMs);
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
