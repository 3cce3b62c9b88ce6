import { Global, Module } from '@nestjs/common';
import { NotificationBus } from './notification-bus';
import { RunWakeup } from './run-wakeup';

@Global()
@Module({ providers: [NotificationBus, RunWakeup], exports: [NotificationBus, RunWakeup] })
export class NotifyModule {}
