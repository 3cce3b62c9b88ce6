import { Global, Module } from '@nestjs/common';
import { CredentialsModule } from '../credentials/credentials.module';
import { EventsModule } from '../events/events.module';
import { MetricsModule, MetricsRegistry } from '../metrics/metrics.module';
import { RepositoriesModule } from '../repositories/repositories.module';
import { AgentBootstrapService } from './agent-bootstrap.service';
import { AgentCaRepository } from './agent-ca.repository';
import { AgentCa } from './agent-ca.service';
import { AgentDiffRelaysRepository } from './agent-diff-relays.repository';
import { AgentDiffs } from './agent-diffs';
import { AgentGrpcServer } from './agent-grpc.server';
import { AgentLinkWrites } from './agent-link-writes';
import { AgentLinksRepository } from './agent-links.repository';
import { AgentSessions } from './agent-sessions';
import { AgentStreamMetrics } from './agent-stream.metrics';
import { AgentStreamService } from './agent-stream.service';
import { AgentUpgrades } from './agent-upgrades';
import { AgentsController } from './agents.controller';
import { AgentReportIngest } from './agent-report-ingest';
import { AssignmentDispatch } from './assignment-dispatch';

/** Connected agents: their gRPC server, streams, identity and install. */
@Global()
@Module({
  imports: [RepositoriesModule, CredentialsModule, EventsModule, MetricsModule],
  controllers: [AgentsController],
  providers: [
    { provide: AgentStreamMetrics, inject: [MetricsRegistry], useFactory: (registry: MetricsRegistry) => new AgentStreamMetrics(registry) },
    AgentCaRepository, AgentCa, AgentLinksRepository, AgentLinkWrites, AgentSessions, AgentStreamService, AgentGrpcServer, AgentBootstrapService, AgentDiffRelaysRepository, AgentDiffs, AgentReportIngest, AssignmentDispatch, AgentUpgrades],
  exports: [AgentDiffs, AssignmentDispatch, AgentCa, AgentLinksRepository, AgentSessions, AgentBootstrapService, AgentGrpcServer],
})
export class AgentsModule {}
