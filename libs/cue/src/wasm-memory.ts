// Go's js/wasm binary defines its own linear memory without a maximum, so
// the cap is written into the module: with a maximum, memory.grow fails at
// the cap and Go's allocator reports out of memory inside the call.

const WASM_PAGE = 65536;
const MEMORY_SECTION = 5;

function readU32(buf: Uint8Array, pos: number): [number, number] {
  let result = 0;
  let shift = 0;
  for (;;) {
    const b = buf[pos++];
    result += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) return [result, pos];
    shift += 7;
  }
}

function writeU32(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n = Math.floor(n / 128);
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

/** Returns a copy of the module bytes whose first memory has `maxBytes` as maximum. */
export function withMemoryMaximum(wasm: Uint8Array, maxBytes: number): Uint8Array {
  if (wasm[0] !== 0 || wasm[1] !== 0x61 || wasm[2] !== 0x73 || wasm[3] !== 0x6d) {
    throw new Error('not a WebAssembly module');
  }
  let pos = 8;
  while (pos < wasm.length) {
    const id = wasm[pos];
    const [size, body] = readU32(wasm, pos + 1);
    if (id === MEMORY_SECTION) {
      const [count, p1] = readU32(wasm, body);
      if (count < 1) break;
      const flags = wasm[p1];
      const [min, p2] = readU32(wasm, p1 + 1);
      let rest = p2;
      if (flags & 1) rest = readU32(wasm, p2)[1];
      const maxPages = Math.max(min, Math.floor(maxBytes / WASM_PAGE));
      const newBody = [...writeU32(count), flags | 1, ...writeU32(min), ...writeU32(maxPages), ...wasm.subarray(rest, body + size)];
      const out = new Uint8Array(wasm.length - (body + size - pos) + 1 + writeU32(newBody.length).length + newBody.length);
      out.set(wasm.subarray(0, pos), 0);
      let o = pos;
      out[o++] = MEMORY_SECTION;
      for (const b of writeU32(newBody.length)) out[o++] = b;
      out.set(newBody, o);
      o += newBody.length;
      out.set(wasm.subarray(body + size), o);
      return out;
    }
    pos = body + size;
  }
  throw new Error('WebAssembly module defines no memory');
}
