import { Injectable } from '@nestjs/common';
import { NotificationBus } from './notification-bus';

/** Wakes this close together go out as one notice (a connect storm would send one per agent). */
const WAKE_WINDOW_MS = 10;

/**
 * Tells whoever acts on due Targets (the push scheduler, the agents'
 * assignment dispatch) that some became due (a trigger committed: a manual
 * reconcile, a new digest, a new Project, a wave opening), so they act now
 * instead of at their next tick — on every replica, through the
 * notification bus: the Target may be one only another replica serves (its
 * agent is connected there).
 */
@Injectable()
export class RunWakeup {
  private readonly listeners: Array<() => void> = [];
  private pending = false;

  constructor(private readonly bus: NotificationBus) {
    bus.on((n) => {
      if (n.topic === 'runs-due') for (const listener of this.listeners) listener();
    });
  }

  onWake(listener: () => void): void {
    this.listeners.push(listener);
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
