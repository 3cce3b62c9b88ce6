import { Injectable } from '@nestjs/common';

/**
 * Tells the scheduler that Targets became due (a trigger committed: a
 * manual reconcile, a new digest, a new Project), so it claims them now
 * instead of at its next tick. In-process only: another replica still finds
 * them at its own tick.
 */
@Injectable()
export class RunWakeup {
  private listener: (() => void) | undefined;

  /** The scheduler's hook; one listener. */
  onWake(listener: () => void): void {
    this.listener = listener;
  }

  wake(): void {
    this.listener?.();
  }
}
