import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CueEngineError } from './errors';

const POINTER = join('libs', 'cue', '.wasm-location.json');

/**
 * Finds the directory with cue.wasm and wasm_exec.js: the explicit option,
 * then FLOTILLA_CUE_WASM_DIR, then the pointer libs/cue/build.mjs writes
 * (searched upwards, so src/ under Jest and dist/ both find it).
 */
export function locateWasmDir(explicit?: string): string {
  const dir = explicit ?? process.env.FLOTILLA_CUE_WASM_DIR ?? fromPointer();
  if (!dir) {
    throw new CueEngineError(`CUE engine not built: no ${POINTER} found above ${__dirname}; run npm run build`);
  }
  for (const f of ['cue.wasm', 'wasm_exec.js']) {
    if (!existsSync(join(dir, f))) {
      throw new CueEngineError(`CUE engine not built: ${join(dir, f)} is missing; run npm run build`);
    }
  }
  return dir;
}

/** The native helper beside the wasm, if the build made one for this host. */
export function locateNativeHelper(dir: string): string | undefined {
  const file = join(dir, 'cue-native');
  return existsSync(file) ? file : undefined;
}

function fromPointer(): string | undefined {
  for (let d = __dirname; ; d = dirname(d)) {
    const p = join(d, POINTER);
    if (existsSync(p)) {
      const { dir } = JSON.parse(readFileSync(p, 'utf8')) as { dir: string };
      return dir;
    }
    if (dirname(d) === d) return undefined;
  }
}
