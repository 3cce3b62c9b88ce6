import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CueEngineError } from './errors';
import { locateWasmDir } from './wasm-location';

describe('locateWasmDir', () => {
  it('finds the build output through the pointer build.mjs writes', () => {
    const dir = locateWasmDir();
    expect(existsSync(join(dir, 'cue.wasm'))).toBe(true);
    expect(dir).toMatch(/cue-wasm-v0\.17\.\d+-go1\.\d+/);
  });

  it('names the missing file when an explicit directory lacks the engine', () => {
    expect(() => locateWasmDir('/nonexistent/cue')).toThrow(CueEngineError);
    expect(() => locateWasmDir('/nonexistent/cue')).toThrow('/nonexistent/cue/cue.wasm is missing; run npm run build');
  });
});
