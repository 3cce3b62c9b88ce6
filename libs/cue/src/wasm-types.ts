// The few WebAssembly types used here: the project's lib settings (ES2023,
// @types/node 20) do not declare the WebAssembly global.

/** A compiled module; it can be posted to worker threads. */
export type WasmModule = { readonly __brand: 'WebAssembly.Module' };

export interface WasmMemory {
  readonly buffer: ArrayBuffer;
}

export interface WasmApi {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  instantiate(module: WasmModule, imports: object): Promise<{ exports: Record<string, unknown> }>;
}

export function webAssembly(): WasmApi {
  return (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
}
