// A CUE helper started by the CLI's launcher before the bundle loads, so the
// helper's start overlaps Node's own; the engine's first native runner
// adopts it. The two bundles share nothing but the global object.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Socket } from 'node:net';
import { defaultCueEngineOptions, type CueEngineOptions } from './options';
import { locateNativeHelper, locateWasmDir } from './wasm-location';

const SLOT = Symbol.for('flotilla.cue.prespawned-helper');

type HelperOptions = Pick<CueEngineOptions, 'memoryLimitBytes' | 'gcPercent'>;

interface Prespawned {
  binary: string;
  options: HelperOptions;
  child: ChildProcessWithoutNullStreams;
  gone: boolean;
}

type Global = typeof globalThis & { [SLOT]?: Prespawned };

/** Starts a helper the way the native runner does: empty environment but its limits, cwd /. */
export function spawnNativeHelper(binary: string, options: HelperOptions): ChildProcessWithoutNullStreams {
  const env: Record<string, string> = { FLOTILLA_CUE_MEMORY_LIMIT: String(options.memoryLimitBytes), FLOTILLA_CUE_PARENT_PID: String(process.pid) };
  if (options.gcPercent !== undefined) env.GOGC = String(options.gcPercent);
  return spawn(binary, [], { cwd: '/', env, stdio: ['pipe', 'pipe', 'pipe'] });
}

function streamsOf(child: ChildProcessWithoutNullStreams): Socket[] {
  return [child.stdin, child.stdout, child.stderr] as unknown as Socket[];
}

/**
 * Starts one helper with the default options (or these), unless the environment asks
 * for wasm or none was built. Never throws: without it the engine spawns as usual.
 * Unreferenced until adopted; one never adopted dies with this process.
 */
export function prespawnNativeHelper(overrides: Partial<HelperOptions> = {}): void {
  try {
    const defaults = defaultCueEngineOptions();
    if (defaults.runtime === 'wasm') return;
    const binary = locateNativeHelper(locateWasmDir());
    if (!binary) return;
    const options = { memoryLimitBytes: defaults.memoryLimitBytes, gcPercent: defaults.gcPercent, ...overrides };
    const child = spawnNativeHelper(binary, options);
    const entry: Prespawned = { binary, options, child, gone: false };
    const markGone = () => {
      entry.gone = true;
    };
    child.once('error', markGone);
    child.once('exit', markGone);
    child.stdin.on('error', () => undefined);
    child.unref();
    for (const s of streamsOf(child)) s.unref();
    (globalThis as Global)[SLOT] = entry;
  } catch {
    // the engine spawns its own
  }
}

/** The prespawned helper if it matches and still runs; any other is killed. Taken once. */
export function adoptPrespawnedHelper(binary: string, options: HelperOptions): ChildProcessWithoutNullStreams | undefined {
  const g = globalThis as Global;
  const entry = g[SLOT];
  if (!entry) return undefined;
  delete g[SLOT];
  const { child } = entry;
  if (entry.gone || entry.binary !== binary || entry.options.memoryLimitBytes !== options.memoryLimitBytes || entry.options.gcPercent !== options.gcPercent || child.exitCode !== null || child.signalCode !== null) {
    child.kill('SIGKILL');
    return undefined;
  }
  // As a fresh spawn is: referenced until the pool finds it ready.
  child.ref();
  for (const s of streamsOf(child)) s.ref();
  return child;
}
