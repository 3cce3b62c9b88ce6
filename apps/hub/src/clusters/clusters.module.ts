import { Module } from '@nestjs/common';
import { InventoryModule } from '../targeting/inventory.module';
import { ClustersController } from './clusters.controller';
import { ClustersService } from './clusters.service';

@Module({
  imports: [InventoryModule],
  controllers: [ClustersController],
  providers: [ClustersService],
})
export class ClustersModule {}
