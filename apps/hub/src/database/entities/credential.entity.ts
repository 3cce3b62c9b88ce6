import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** An encrypted secret (cluster or registry credentials). Never leaves the hub in clear. */
@Entity('credentials')
@Index('idx_credentials_key_id', ['keyId'])
export class CredentialEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_credentials' })
  id!: string;

  /** token, clientCertificate, kubeconfig, basic or dockerConfigJson */
  @Column({ type: 'varchar', length: 32 })
  kind!: string;

  /** id of the key that sealed `envelope`; rotation re-seals rows with an old key id */
  @Column({ name: 'key_id', type: 'varchar', length: 64 })
  keyId!: string;

  /** AES-256-GCM: base64 of nonce | tag | ciphertext */
  @Column({ type: 'text' })
  envelope!: string;

  /**
   * Where the secret may go (a cluster's server URL, a registry host): part of
   * the sealed value's associated data, so it opens only for that endpoint.
   * Null: sealed by a hub before bindings, re-sealed at start.
   */
  @Column({ name: 'bound_to', type: 'text', nullable: true })
  boundTo!: string | null;

  /** sha256 of the plaintext, shortened: lets users tell credentials apart without seeing them */
  @Column({ type: 'varchar', length: 64 })
  fingerprint!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
