import { readFileSync } from 'node:fs';
import { CueEngine } from './engine';
import { prespawnNativeHelper } from './native-prespawn';

const SLOT = Symbol.for('flotilla.cue.prespawned-helper');
type Slot = { child: { pid: number } } | undefined;
const prespawned = () => (globalThis as unknown as Record<symbol, Slot>)[SLOT];

/** Whether the process runs (a zombie waiting for its reaper does not). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

const tiny = { files: { 'a.cue': 'a: 1 + 1' }, entries: ['a.cue'], exports: [{ path: 'a' }] };

describe('a CUE helper started ahead (the CLI launcher)', () => {
  it('is the helper the engine then uses, and goes with it', async () => {
    prespawnNativeHelper({ gcPercent: 400 });
    const pid = prespawned()!.child.pid;
    const engine = await CueEngine.start({ poolSize: 1, gcPercent: 400, runtime: 'native' });
    try {
      expect(prespawned()).toBeUndefined();
      expect((await engine.evaluate(tiny)).exports[0].json).toBe('2');
      expect(alive(pid)).toBe(true);
    } finally {
      await engine.close();
    }
    expect(alive(pid)).toBe(false);
  });

  it('is killed, and a fresh one spawned, when the engine asks for other limits', async () => {
    prespawnNativeHelper({ gcPercent: 400 });
    const pid = prespawned()!.child.pid;
    const engine = await CueEngine.start({ poolSize: 1, runtime: 'native' });
    try {
      expect(prespawned()).toBeUndefined();
      expect((await engine.evaluate(tiny)).exports[0].json).toBe('2');
      // SIGKILLed on adoption: wait for it to be gone
      while (alive(pid)) await new Promise((r) => setTimeout(r, 10));
    } finally {
      await engine.close();
    }
  });
});
