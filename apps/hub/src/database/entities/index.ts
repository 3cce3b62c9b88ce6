import { AgentCaEntity } from './agent-ca.entity';
import { AgentDiffRelayEntity } from './agent-diff-relay.entity';
import { AgentLinkEntity } from './agent-link.entity';
import { ApiTokenEntity } from './api-token.entity';
import { AuditEntryEntity } from './audit-entry.entity';
import { CdeventOutboxEntity } from './cdevent-outbox.entity';
import { CdeventReceiptEntity } from './cdevent-receipt.entity';
import { ClusterEntity } from './cluster.entity';
import { CredentialEntity } from './credential.entity';
import { EventEntity } from './event.entity';
import { ClusterCountDeltaEntity, ClusterGroupCountEntity, ClusterRekeyEntity, TargetCountDeltaEntity, TargetCountEntity } from './fleet-counts.entity';
import { ListVersionEntity } from './list-version.entity';
import { OidcBindingEntity } from './oidc-binding.entity';
import { ProjectEntity } from './project.entity';
import { RunEntity } from './run.entity';
import { TargetEntity } from './target.entity';
import { TenantEntity } from './tenant.entity';

export { ClusterCountDeltaEntity, ClusterGroupCountEntity, ClusterRekeyEntity, TargetCountDeltaEntity, TargetCountEntity };
export { AgentCaEntity, AgentDiffRelayEntity, AgentLinkEntity, ApiTokenEntity, AuditEntryEntity, CdeventOutboxEntity, CdeventReceiptEntity, ClusterEntity, CredentialEntity, EventEntity, ListVersionEntity, OidcBindingEntity, ProjectEntity, RunEntity, TargetEntity, TenantEntity };
export type { TenantDestinations } from './tenant.entity';
export type { ClusterMode } from './cluster.entity';
export type { Role, TokenSource } from './api-token.entity';
export type { ActorKind } from './audit-entry.entity';
export type { BindingClaim } from './oidc-binding.entity';
export { BINDING_CLAIMS } from './oidc-binding.entity';
export { ACTOR_KINDS } from './audit-entry.entity';
export type { Condition, TargetPhase } from './target.entity';
export { TARGET_PHASES } from './target.entity';
export type { RunResultKind } from './run.entity';
export type { DeliveryState, OutboxFormat, SealedSinkHeader, SealedWebhook } from './cdevent-outbox.entity';
export { DELIVERY_STATES } from './cdevent-outbox.entity';
export type { LabelSelector, LabelSelectorRequirement, OutsideDestinations, TargetRemoval, TargetSelector } from './project.entity';
export { TARGET_REMOVALS } from './project.entity';

/** Every entity of the hub, for the DataSource. */
export const hubEntities = [AgentCaEntity, AgentDiffRelayEntity, AgentLinkEntity, ApiTokenEntity, AuditEntryEntity, CdeventOutboxEntity, CdeventReceiptEntity, ClusterEntity, CredentialEntity, EventEntity, ListVersionEntity, ProjectEntity, RunEntity, TargetEntity, TenantEntity, OidcBindingEntity, TargetCountEntity, TargetCountDeltaEntity, ClusterGroupCountEntity, ClusterCountDeltaEntity, ClusterRekeyEntity];
