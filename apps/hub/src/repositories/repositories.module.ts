import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CryptoRepository } from '../crypto/crypto.repository';
import { KubeRepository } from '../kube/kube.repository';
import { AuditRepository } from './audit.repository';
import { CdeventOutboxRepository } from './cdevent-outbox.repository';
import { ClustersRepository } from './clusters.repository';
import { CredentialsRepository } from './credentials.repository';
import { FleetRepository } from './fleet.repository';
import { HistoryRepository } from './history.repository';
import { ListTotals } from './list-totals';
import { OidcBindingsRepository } from './oidc-bindings.repository';
import { ProjectsRepository } from './projects.repository';
import { TargetsRepository } from './targets.repository';
import { TenantsRepository } from './tenants.repository';
import { TokensRepository } from './tokens.repository';
import { UnitOfWork } from './unit-of-work';

const onDataSource = <T>(make: (ds: DataSource) => T) => ({ inject: [DataSource], useFactory: make });

/**
 * The hub's I/O boundary: every repository (database tables, the credentials
 * store, remote API servers) and the UnitOfWork for writes spanning tables.
 * Feature modules and the scheduler import this; nothing else talks to the database.
 */
@Module({
  providers: [
    // one per replica: the totals it remembers serve every request
    { provide: ListTotals, useFactory: () => new ListTotals() },
    { provide: ClustersRepository, inject: [DataSource, ListTotals], useFactory: (ds: DataSource, totals: ListTotals) => new ClustersRepository(ds.manager, totals) },
    { provide: ProjectsRepository, ...onDataSource((ds) => new ProjectsRepository(ds.manager)) },
    { provide: TargetsRepository, inject: [DataSource, ListTotals], useFactory: (ds: DataSource, totals: ListTotals) => new TargetsRepository(ds.manager, totals) },
    { provide: FleetRepository, inject: [DataSource, ListTotals], useFactory: (ds: DataSource, totals: ListTotals) => new FleetRepository(ds.manager, totals) },
    { provide: HistoryRepository, ...onDataSource((ds) => new HistoryRepository(ds.manager)) },
    { provide: TokensRepository, ...onDataSource((ds) => new TokensRepository(ds.manager)) },
    { provide: TenantsRepository, ...onDataSource((ds) => new TenantsRepository(ds.manager)) },
    { provide: CdeventOutboxRepository, ...onDataSource((ds) => new CdeventOutboxRepository(ds.manager)) },
    { provide: AuditRepository, ...onDataSource((ds) => new AuditRepository(ds.manager)) },
    { provide: OidcBindingsRepository, ...onDataSource((ds) => new OidcBindingsRepository(ds.manager)) },
    {
      provide: CredentialsRepository,
      inject: [DataSource, CryptoRepository],
      useFactory: (ds: DataSource, crypto: CryptoRepository) => new CredentialsRepository(ds.manager, crypto),
    },
    KubeRepository,
    UnitOfWork,
  ],
  exports: [ListTotals, FleetRepository, ClustersRepository, ProjectsRepository, TargetsRepository, HistoryRepository, TokensRepository, TenantsRepository, CredentialsRepository, CdeventOutboxRepository, AuditRepository, OidcBindingsRepository, KubeRepository, UnitOfWork],
})
export class RepositoriesModule {}
