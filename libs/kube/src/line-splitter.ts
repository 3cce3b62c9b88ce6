// Splits a byte stream into newline-terminated lines, refusing a line longer than a limit
// while reading (a watch stream is endless, so a line is the unit that must stay bounded).

export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  /** `tooLarge` builds the error thrown once a line passes `maxLineBytes`. */
  constructor(
    readonly maxLineBytes: number,
    private readonly tooLarge: () => Error,
  ) {
    if (!(maxLineBytes > 0)) throw new RangeError(`maxLineBytes must be positive (got ${maxLineBytes})`);
  }

  /** The complete lines this chunk finishes (without the newline; empty lines dropped). */
  push(chunk: Buffer): Buffer[] {
    const lines: Buffer[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(0x0a, start); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      this.add(chunk.subarray(start, nl));
      const line = this.take();
      if (line.length > 0) lines.push(line);
      start = nl + 1;
    }
    if (start < chunk.length) this.add(chunk.subarray(start));
    return lines;
  }

  /** What is left after the stream ended (a last line without newline), if anything. */
  end(): Buffer | undefined {
    const rest = this.take();
    return rest.length > 0 ? rest : undefined;
  }

  private add(part: Buffer): void {
    if (part.length === 0) return;
    this.pendingBytes += part.length;
    if (this.pendingBytes > this.maxLineBytes) throw this.tooLarge();
    this.pending.push(part);
  }

  private take(): Buffer {
    const line = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    // trailing \r of CRLF-terminated lines
    return line.length > 0 && line[line.length - 1] === 0x0d ? line.subarray(0, -1) : line;
  }
}
