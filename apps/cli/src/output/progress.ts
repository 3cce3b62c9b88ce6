// Progress for anything that takes more than a second: on a terminal a
// spinner with the elapsed time appears on stderr after one second and is
// erased when the work ends; off a terminal nothing is drawn, so logs and
// pipes stay clean.
import type { Io } from '../io';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface ProgressOptions {
  /** before the spinner appears */
  delayMs: number;
  /** between frames */
  frameMs: number;
}

export async function withProgress<T>(io: Io, label: string, work: () => Promise<T>, options: ProgressOptions = { delayMs: 1000, frameMs: 100 }): Promise<T> {
  const err = io.err as Io['err'] & { isTTY?: boolean };
  if (!err.isTTY || io.env.TERM === 'dumb') return work();
  const started = Date.now();
  let frame = 0;
  let drawn = false;
  const draw = () => {
    const seconds = Math.floor((Date.now() - started) / 1000);
    err.write(`\r\x1b[2K${FRAMES[frame++ % FRAMES.length]} ${label} (${seconds}s)`);
    drawn = true;
  };
  let ticker: NodeJS.Timeout | undefined;
  const delay = setTimeout(() => {
    draw();
    ticker = setInterval(draw, options.frameMs);
  }, options.delayMs);
  try {
    return await work();
  } finally {
    clearTimeout(delay);
    clearInterval(ticker);
    if (drawn) err.write('\r\x1b[2K');
  }
}
