import type { EntityManager } from 'typeorm';
import type { CryptoRepository } from '../crypto/crypto.repository';
import { CdeventOutboxRepository } from './cdevent-outbox.repository';
import { ClustersRepository } from './clusters.repository';
import { CredentialsRepository } from './credentials.repository';
import { HistoryRepository } from './history.repository';
import { ProjectsRepository } from './projects.repository';
import { TargetsRepository } from './targets.repository';
import { TenantsRepository } from './tenants.repository';
import { TokensRepository } from './tokens.repository';

/** Every repository, bound to one EntityManager: the DataSource's, or a transaction's. */
export interface Repositories {
  readonly clusters: ClustersRepository;
  readonly projects: ProjectsRepository;
  readonly targets: TargetsRepository;
  readonly history: HistoryRepository;
  readonly credentials: CredentialsRepository;
  readonly tokens: TokensRepository;
  readonly tenants: TenantsRepository;
  readonly cdevents: CdeventOutboxRepository;
}

export function repositoriesFor(db: EntityManager, crypto: CryptoRepository): Repositories {
  return {
    clusters: new ClustersRepository(db),
    projects: new ProjectsRepository(db),
    targets: new TargetsRepository(db),
    history: new HistoryRepository(db),
    credentials: new CredentialsRepository(db, crypto),
    tokens: new TokensRepository(db),
    tenants: new TenantsRepository(db),
    cdevents: new CdeventOutboxRepository(db),
  };
}
