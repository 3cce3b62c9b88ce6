// Helpers shared by this library's specs (not exported from index.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CueEngine } from './engine';
import { readFileTree } from './file-tree';
import type { FileTree } from './types';
import { TEST_BLOCK_OP, type WorkerPool } from './worker-pool';

export const TESTDATA = join(__dirname, '..', 'testdata');

/** The webapp fixture module with Timoni's schema overlay added, as a build would see it. */
export function webappTree(): FileTree {
  const tree = readFileTree(join(TESTDATA, 'webapp'));
  tree['timoni.schema.cue'] = readFileSync(join(TESTDATA, 'overlays', 'timoni.schema.cue'));
  return tree;
}

export const INSTANCE_TAGS = { name: 'shop', namespace: 'apps' };
export const TAG_VARS = { moduleVersion: '1.0.0', kubeVersion: '1.31.0' };

/** Compares with a golden file; UPDATE_GOLDEN=1 rewrites it instead. */
export function golden(name: string, actual: string): string {
  const file = join(TESTDATA, 'golden', name);
  if (process.env.UPDATE_GOLDEN === '1') {
    writeFileSync(file, actual);
  }
  return readFileSync(file, 'utf8');
}

/** The engine's pool, for the test ops the engine never sends. */
export function poolOf(engine: CueEngine): WorkerPool {
  return (engine as unknown as { pool: WorkerPool }).pool;
}

export interface BlockedCall {
  /** Settles with the call's response text, or its error as a value. */
  done: Promise<unknown>;
  /** Lets the worker go on (before or after the call reached one). */
  release(): void;
}

/** A call that holds its worker, allocating nothing, until released or timed out. */
export function blockingCall(engine: CueEngine, tenant?: string, timeoutMs = 120_000): BlockedCall {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const done = poolOf(engine)
    .call(TEST_BLOCK_OP, cell.buffer, timeoutMs, tenant)
    .catch((e: unknown) => e);
  return {
    done,
    release() {
      Atomics.store(cell, 0, 1);
      Atomics.notify(cell, 0);
    },
  };
}

/** A call that keeps its worker busy in wasm code, allocating nothing, until the timeout stops it. */
export function spinningCall(engine: CueEngine, timeoutMs: number, tenant?: string): Promise<unknown> {
  return poolOf(engine)
    .call('test.spin', {}, timeoutMs, tenant)
    .catch((e: unknown) => e);
}

/** Resolves once every worker of the pool is up (replacements included). */
export async function untilAllReady(engine: CueEngine): Promise<void> {
  while (engine.stats().ready < engine.stats().size) await new Promise((r) => setTimeout(r, 10));
}
