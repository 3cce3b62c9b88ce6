import { Worker } from 'node:worker_threads';
import { jsonFiles } from './files';
import type { CueEngineOptions } from './options';
import type { CueRunner, CueRunnerFactory, RunnerEvents } from './runner';
import type { WasmModule } from './wasm-types';
import { cueWorkerMain, type WorkerCall, type WorkerInit, type WorkerReply } from './worker-main';

/** Set by the CLI bundle's build to the worker bundled alone: its copy of cueWorkerMain is not self-contained. */
declare const FLOTILLA_CUE_WORKER_SOURCE: string | undefined;
const WORKER_SOURCE = typeof FLOTILLA_CUE_WORKER_SOURCE === 'string' ? FLOTILLA_CUE_WORKER_SOURCE : `(${cueWorkerMain.toString()})()`;

/** Worker threads each instantiating the compiled cue.wasm (the portable fallback). */
export class WasmRunnerFactory implements CueRunnerFactory {
  readonly memoryKind = 'wasm memory';

  constructor(
    private readonly options: CueEngineOptions,
    private readonly module: WasmModule,
    private readonly wasmExec: string,
  ) {}

  spawn(events: RunnerEvents): CueRunner {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      resourceLimits: { maxOldGenerationSizeMb: this.options.workerHeapMb },
      stdout: false,
      stderr: false,
    });
    worker.on('message', (m: WorkerReply) => {
      if (m.type === 'ready') events.ready({ startMs: m.startMs, memoryBytes: m.memoryBytes });
      else if (m.type === 'result') events.result({ id: m.id, response: m.response, memoryBytes: m.memoryBytes });
      else events.fatal({ message: m.message, output: m.output });
    });
    worker.on('error', (err: Error & { code?: string }) => events.fatal({ message: err.message, output: '', code: err.code }));
    worker.on('exit', (code) => events.fatal({ message: `worker exited with code ${code}`, output: '' }));
    const gomemlimit = Math.floor(this.options.memoryLimitBytes * 0.8);
    const init: WorkerInit = { type: 'init', module: this.module, wasmExec: this.wasmExec, env: { GOMEMLIMIT: String(gomemlimit) } };
    worker.postMessage(init);
    return {
      call(id, op, payload) {
        const msg: WorkerCall = { type: 'call', id, op, payload: jsonFiles(payload) };
        worker.postMessage(msg);
      },
      ref: () => worker.ref(),
      unref: () => worker.unref(),
      terminate: async () => {
        await worker.terminate();
      },
    };
  }
}
