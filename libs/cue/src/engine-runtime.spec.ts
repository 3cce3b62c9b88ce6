import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CueEngine } from './engine';
import { CueEngineError, CueEvaluationError } from './errors';
import { INSTANCE_TAGS, TAG_VARS, poolOf, webappTree } from './test-support';
import type { EvaluateRequest } from './types';
import { locateNativeHelper, locateWasmDir } from './wasm-location';

const build: EvaluateRequest = {
  files: webappTree(),
  tags: INSTANCE_TAGS,
  tagVars: TAG_VARS,
  checks: [{ path: 'timoni.instance', concrete: true, final: true }],
  exports: [{ path: 'timoni.apply', fields: true, yamlCompat: true }],
};

/** Whether the process runs (a zombie waiting for its reaper does not). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

// Production runs the native helper; every other suite therefore runs on it.
// The wasm runtime stays as the fallback and must answer the same.
describe('CueEngine runtimes', () => {
  it('runs on the native helper by default where it was built', async () => {
    expect(locateNativeHelper(locateWasmDir())).toBeDefined();
    const engine = await CueEngine.start({ poolSize: 1 });
    try {
      expect(engine.runtime).toBe('native');
      expect(engine.fallbackReason).toBeUndefined();
    } finally {
      await engine.close();
    }
  });

  it('confines the helper with Landlock before it serves a call', () => {
    const helper = locateNativeHelper(locateWasmDir())!;
    const res = spawnSync(helper, [], { input: '', encoding: 'utf8', timeout: 30_000 });
    expect(res.stdout).toMatch(/^ready v0\.17\.\d+ landlock\n/);
  });

  it('gives the same answers, errors included, on native and wasm', async () => {
    const native = await CueEngine.start({ poolSize: 1, runtime: 'native' });
    const wasm = await CueEngine.start({ poolSize: 1, runtime: 'wasm' });
    try {
      expect(wasm.runtime).toBe('wasm');
      const [a, b] = await Promise.all([native.evaluate(build), wasm.evaluate(build)]);
      expect(a.exports[0].fields!.length).toBeGreaterThan(0);
      expect(a).toEqual(b);
      const bad = { files: { 'a.cue': 'package main\nx: int & "s"\n' }, exports: [{ path: 'x' }] };
      const [ea, eb] = await Promise.all([native.evaluate(bad).catch((e: unknown) => e), wasm.evaluate(bad).catch((e: unknown) => e)]);
      expect(ea).toBeInstanceOf(CueEvaluationError);
      expect((ea as CueEvaluationError).diagnostics).toEqual((eb as CueEvaluationError).diagnostics);
    } finally {
      await Promise.all([native.close(), wasm.close()]);
    }
  });

  it('reports a helper that dies mid-call and replaces it', async () => {
    const engine = await CueEngine.start({ poolSize: 1, runtime: 'native' });
    try {
      const err = await poolOf(engine)
        .call('test.exit', {}, 30_000)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CueEngineError);
      expect((err as Error).message).toMatch(/^test\.exit: the CUE engine crashed: the CUE helper exited with code 7/);
      expect(engine.stats().replaced).toBe(1);
      const res = await engine.evaluate({ files: { 'a.cue': 'package main\nx: 1 + 1\n' }, exports: [{ path: 'x' }] });
      expect(res.exports[0].json).toBe('2');
    } finally {
      await engine.close();
    }
  });

  it('kills a helper busy in a runaway call when the process that started it dies', async () => {
    const helper = locateNativeHelper(locateWasmDir())!;
    // The parent starts a helper as native-runner.ts does, sets it spinning (test.spin), prints its pid.
    const script = [
      "const { spawn } = require('node:child_process');",
      `const h = spawn(${JSON.stringify(helper)}, [], { cwd: '/', env: { FLOTILLA_CUE_PARENT_PID: String(process.pid) }, stdio: ['pipe', 'pipe', 'ignore'] });`,
      "h.stdout.once('data', () => { h.stdin.write('1 test.spin 2\\n{}'); console.log(h.pid); });",
    ].join('\n');
    const parent = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const pid = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(d.toString()))));
    expect(alive(pid)).toBe(true);
    parent.kill('SIGKILL');
    const deadline = Date.now() + 20_000;
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(alive(pid)).toBe(false);
  });

  it('falls back to wasm when the helper is missing, unless native is demanded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cue-wasm-only-'));
    try {
      for (const f of ['cue.wasm', 'wasm_exec.js']) symlinkSync(join(locateWasmDir(), f), join(dir, f));
      const err = await CueEngine.start({ poolSize: 1, runtime: 'native', wasmDir: dir }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CueEngineError);
      expect((err as Error).message).toBe(`CUE engine not built for this host: ${join(dir, 'cue-native')} is missing; run npm run build`);
      const engine = await CueEngine.start({ poolSize: 1, wasmDir: dir });
      await engine.close();
      expect(engine.runtime).toBe('wasm');
      expect(engine.fallbackReason).toBe(`${join(dir, 'cue-native')} is missing`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
