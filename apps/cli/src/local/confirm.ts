// One yes/no question on stderr, answered by a line on stdin (a terminal or
// a pipe); anything but y or yes, or no answer at all, is no.
import { createInterface } from 'node:readline';
import type { Io } from '../io';

export async function confirm(io: Io, question: string): Promise<boolean> {
  if (!io.in) return false;
  io.err.write(`${question} [y/N] `);
  const lines = createInterface({ input: io.in, terminal: false });
  try {
    for await (const line of lines) return /^\s*(y|yes)\s*$/i.test(line);
    return false;
  } finally {
    lines.close();
  }
}
