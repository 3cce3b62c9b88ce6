import { Global, Module } from '@nestjs/common';
import { NotificationBus } from './notification-bus';

@Global()
@Module({ providers: [NotificationBus], exports: [NotificationBus] })
export class NotifyModule {}
