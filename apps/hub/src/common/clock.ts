/**
 * The time, from one place: services and repositories ask the Clock, never
 * `new Date()`, so tests can hold time still or move it by hand.
 * The abstract class is also the injection token.
 */
export abstract class Clock {
  abstract now(): Date;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}

/** A clock that moves only when told to. */
export class FixedClock extends Clock {
  private ms: number;

  constructor(at: Date | string) {
    super();
    this.ms = new Date(at).getTime();
  }

  now(): Date {
    return new Date(this.ms);
  }

  set(at: Date | string): void {
    this.ms = new Date(at).getTime();
  }

  advance(ms: number): void {
    this.ms += ms;
  }
}
