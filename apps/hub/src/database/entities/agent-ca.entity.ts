import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { CredentialEntity } from './credential.entity';

/**
 * The CA that signs agents' client certificates and hub replicas' serving
 * certificates, shared by every replica. One row (`name` = "agents"): the
 * first replica to insert it wins, the others read it.
 */
@Entity('agent_ca')
export class AgentCaEntity {
  @PrimaryColumn({ type: 'varchar', length: 32, primaryKeyConstraintName: 'pk_agent_ca' })
  name!: string;

  /** PEM */
  @Column({ type: 'text' })
  certificate!: string;

  /** its private key, sealed in the credentials store (kind agentCaKey) */
  @Column({ name: 'key_credential_id', type: 'uuid' })
  keyCredentialId!: string;

  @ManyToOne(() => CredentialEntity, { onDelete: 'NO ACTION' })
  @JoinColumn({ name: 'key_credential_id', foreignKeyConstraintName: 'fk_agent_ca_key' })
  keyCredential?: CredentialEntity;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
