import { Clock } from '../src/common/clock';

/** The system time moved by an offset a suite sets: time runs as usual, and a suite can jump ahead (a soak, a deadline). */
export class OffsetClock extends Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  reset(): void {
    this.offsetMs = 0;
  }
}
