import { Module } from '@nestjs/common';
import { InventoryModule } from '../targeting/inventory.module';
import { ProjectsController } from './projects.controller';
import { ProjectsService } from './projects.service';
import { TargetsService } from './targets.service';

@Module({
  imports: [InventoryModule],
  controllers: [ProjectsController],
  providers: [ProjectsService, TargetsService],
})
export class ProjectsModule {}
