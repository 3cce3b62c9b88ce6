import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { MembershipService } from './membership.service';

/** Target membership: which clusters each Project targets. */
@Module({
  imports: [EventsModule],
  providers: [MembershipService],
  exports: [MembershipService],
})
export class TargetingModule {}
