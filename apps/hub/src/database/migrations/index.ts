import { Initial1763780000000 } from './1763780000000-initial';
import { ProjectDeletion1763790000000 } from './1763790000000-project-deletion';
import { Scheduler1763800000000 } from './1763800000000-scheduler';
import { RunReport1763820000000 } from './1763820000000-run-report';
import { ClusterIdentity1763830000000 } from './1763830000000-cluster-identity';
import { ReadPaths1763840000000 } from './1763840000000-read-paths';
import { ListVersions1763850000000 } from './1763850000000-list-versions';
import { AgentLinks1764000000000 } from './1764000000000-agent-links';
import { Cdevents1764100000000 } from './1764100000000-cdevents';
import { TargetRemoval1764300000000 } from './1764300000000-target-removal';
import { ProjectBootstrap1764310000000 } from './1764310000000-project-bootstrap';
import { AgentCertificates1764400000000 } from './1764400000000-agent-certificates';
import { AgentDiffRelays1764500000000 } from './1764500000000-agent-diff-relays';
import { HotUpdates1764600000000 } from './1764600000000-hot-updates';
import { CredentialBindings1764700200000 } from './1764700200000-credential-bindings';
import { TokenLifetime1764700400000 } from './1764700400000-token-lifetime';
import { AuditLog1764800000000 } from './1764800000000-audit-log';
import { AgentDesiredState1764810000000 } from './1764810000000-agent-desired-state';
import { Tenants1764820000000 } from './1764820000000-tenants';
import { FleetCounts1764830000000 } from './1764830000000-fleet-counts';
import { OidcBindings1764840000000 } from './1764840000000-oidc-bindings';
import { RolloutWaves1764850000000 } from './1764850000000-rollout-waves';
import { RolloutNotices1764860000000 } from './1764860000000-rollout-notices';
import { UnhealthyState1764870000000 } from './1764870000000-unhealthy-state';
import { TargetClusterName1764880000000 } from './1764880000000-target-cluster-name';

// Migrations in the order they run. Written by hand (or generated, then
// reviewed); the schema never changes any other way.
export const hubMigrations = [Initial1763780000000, ProjectDeletion1763790000000, Scheduler1763800000000, RunReport1763820000000, ClusterIdentity1763830000000, ReadPaths1763840000000, ListVersions1763850000000, AgentLinks1764000000000, Cdevents1764100000000, TargetRemoval1764300000000, ProjectBootstrap1764310000000, AgentCertificates1764400000000, AgentDiffRelays1764500000000, HotUpdates1764600000000, CredentialBindings1764700200000, TokenLifetime1764700400000, AuditLog1764800000000, AgentDesiredState1764810000000, Tenants1764820000000, FleetCounts1764830000000, OidcBindings1764840000000, RolloutWaves1764850000000, RolloutNotices1764860000000, UnhealthyState1764870000000, TargetClusterName1764880000000];
