import { Injectable } from '@nestjs/common';

/** Tells this replica's delivery loop that an outbox row committed, so it goes out now rather than at the next tick. */
@Injectable()
export class DeliveryWakeup {
  private listener: (() => void) | undefined;

  onWake(listener: () => void): void {
    this.listener = listener;
  }

  wake(): void {
    this.listener?.();
  }
}
