import { Module } from '@nestjs/common';
import { ClustersRepository } from '../clusters/clusters.repository';
import { CredentialsModule } from '../credentials/credentials.module';
import { KubeRepository } from '../kube/kube.repository';
import { ProjectsRepository } from '../projects/projects.repository';
import { HistoryRepository } from './history.repository';
import { MembershipService } from './membership.service';
import { TargetsRepository } from './targets.repository';

/** The repositories of the inventory and target membership, shared by the clusters and projects APIs. */
@Module({
  imports: [CredentialsModule],
  providers: [ClustersRepository, ProjectsRepository, TargetsRepository, HistoryRepository, MembershipService, KubeRepository],
  exports: [CredentialsModule, ClustersRepository, ProjectsRepository, TargetsRepository, HistoryRepository, MembershipService, KubeRepository],
})
export class InventoryModule {}
