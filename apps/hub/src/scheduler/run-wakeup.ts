import { Injectable } from '@nestjs/common';
import { NotificationBus } from '../notify/notification-bus';

/** Wakes this close together go out as one notice (a connect storm would send one per agent). */
const WAKE_WINDOW_MS = 10;

/**
 * Tells the scheduler that Targets became due (a trigger committed: a
 * manual reconcile, a new digest, a new Project, an agent connected), so it
 * claims them now instead of at its next tick — on every replica, through
 * the notification bus: the Target may be one only another replica can run
 * (its agent is connected there).
 */
@Injectable()
export class RunWakeup {
  private listener: (() => void) | undefined;
  private pending = false;

  constructor(private readonly bus: NotificationBus) {
    bus.on((n) => {
      if (n.topic === 'runs-due') this.listener?.();
    });
  }

  /** The scheduler's hook; one listener. */
  onWake(listener: () => void): void {
    this.listener = listener;
  }

  /** The notice goes out after the window: every wake before it is covered by it. */
  wake(): void {
    if (this.pending) return;
    this.pending = true;
    setTimeout(() => {
      this.pending = false;
      this.bus.publish({ topic: 'runs-due' });
    }, WAKE_WINDOW_MS);
  }
}
