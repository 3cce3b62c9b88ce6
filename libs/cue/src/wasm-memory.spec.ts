import { withMemoryMaximum } from './wasm-memory';
import { webAssembly } from './wasm-types';

// (module (memory (export "mem") 1)) — one page, no maximum.
const MODULE = Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 5, 3, 1, 0, 1, 7, 7, 1, 3, 0x6d, 0x65, 0x6d, 2, 0]);

describe('withMemoryMaximum', () => {
  it('gives the module memory a maximum that memory.grow cannot pass', async () => {
    const patched = withMemoryMaximum(MODULE, 4 * 65536);
    const mod = await webAssembly().compile(patched);
    const instance = await webAssembly().instantiate(mod, {});
    const mem = instance.exports.mem as { grow(pages: number): number; buffer: ArrayBuffer };
    expect(mem.grow(3)).toBe(1);
    expect(() => mem.grow(1)).toThrow(RangeError);
    expect(mem.buffer.byteLength).toBe(4 * 65536);
  });

  it('leaves the original bytes untouched and rejects non-wasm input', () => {
    const copy = Uint8Array.from(MODULE);
    withMemoryMaximum(MODULE, 65536 * 8);
    expect(MODULE).toEqual(copy);
    expect(() => withMemoryMaximum(Uint8Array.from([1, 2, 3, 4]), 1)).toThrow('not a WebAssembly module');
  });
});
