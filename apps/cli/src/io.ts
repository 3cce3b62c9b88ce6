// Where the CLI writes and what it knows about its surroundings; passed in
// so that colour and the clock follow the real terminal, not globals.
export interface Io {
  out: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  err: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  now: () => Date;
  /** answers to questions (bootstrap's confirmation); absent: nobody can answer */
  in?: NodeJS.ReadableStream;
}

export function processIo(): Io {
  return { out: process.stdout, err: process.stderr, env: process.env, now: () => new Date(), in: process.stdin };
}

/** Colour only on a terminal, and never with NO_COLOR (https://no-color.org) or TERM=dumb. */
export function colourEnabled(io: Io): boolean {
  return Boolean(io.out.isTTY) && !io.env.NO_COLOR && io.env.TERM !== 'dumb';
}
