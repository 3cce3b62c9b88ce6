import { PassThrough } from 'node:stream';
import type { Io } from '../io';
import { withProgress } from './progress';

function io(tty: boolean): { io: Io; written: () => string } {
  const err = Object.assign(new PassThrough(), { isTTY: tty });
  let text = '';
  err.on('data', (d: Buffer) => (text += d.toString()));
  return { io: { out: new PassThrough(), err, env: {}, now: () => new Date() }, written: () => text };
}

describe('progress', () => {
  const fast = { delayMs: 30, frameMs: 10 };

  it('draws nothing for work shorter than the delay', async () => {
    const t = io(true);
    expect(await withProgress(t.io, 'vetting', async () => 42, fast)).toBe(42);
    await new Promise((r) => setImmediate(r));
    expect(t.written()).toBe('');
  });

  it('draws a spinner on a terminal while slow work runs, then erases it', async () => {
    const t = io(true);
    let release!: () => void;
    const work = new Promise<void>((r) => (release = r));
    const running = withProgress(t.io, 'vetting', () => work, fast);
    // Positive signal: the first frame, not a fixed sleep.
    await new Promise<void>((r) => t.io.err.once('data', () => r()));
    release();
    await running;
    await new Promise((r) => setImmediate(r));
    expect(t.written().startsWith('\r\x1b[2K')).toBe(true);
    expect(t.written()).toContain(' vetting (0s)');
    expect(t.written().endsWith('\r\x1b[2K')).toBe(true);
  });

  it('never draws off a terminal, and passes errors through', async () => {
    const t = io(false);
    // The work ends on a timer due after the spinner's delay and a few frames, set after it,
    // so Node fires it later than any spinner timer: an ordering, not a race with the clock.
    const slow = () => new Promise((_, reject) => setTimeout(() => reject(new Error('boom')), fast.delayMs + 3 * fast.frameMs));
    await expect(withProgress(t.io, 'pushing', slow, fast)).rejects.toThrow('boom');
    expect(t.written()).toBe('');
  });
});
