/** At most `limit` tasks at once across every caller; the rest wait their turn in order. */
export class Limiter {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      // hand the slot straight to the next in line, or give it back
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  get active(): number {
    return this.running;
  }
}
