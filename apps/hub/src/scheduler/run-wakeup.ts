import { Injectable } from '@nestjs/common';
import { NotificationBus } from '../notify/notification-bus';

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

  constructor(private readonly bus: NotificationBus) {
    bus.on((n) => {
      if (n.topic === 'runs-due') this.listener?.();
    });
  }

  /** The scheduler's hook; one listener. */
  onWake(listener: () => void): void {
    this.listener = listener;
  }

  wake(): void {
    this.bus.publish({ topic: 'runs-due' });
  }
}
