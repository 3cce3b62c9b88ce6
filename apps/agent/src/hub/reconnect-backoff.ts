/**
 * Waits between reconnects: doubling from `initialMs` to `maxMs`, each wait
 * drawn at random from its upper half ("equal jitter"), so thousands of
 * agents cut off together do not all come back in the same instant.
 */
export class ReconnectBackoff {
  private attempt = 0;

  constructor(
    private readonly initialMs: number,
    private readonly maxMs: number,
    private readonly random: () => number = Math.random,
  ) {}

  next(): number {
    const ceiling = Math.min(this.maxMs, this.initialMs * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 30);
    return Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
  }

  reset(): void {
    this.attempt = 0;
  }
}
