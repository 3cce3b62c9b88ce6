import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A counter the database bumps (by triggers, at commit) whenever a change
 * could alter the total of a list: clusters added, removed or relabelled,
 * Targets added or removed. A replica that remembers a total together with
 * the version it was counted at reuses it while the version is unchanged,
 * so the total stays exact without counting thousands of rows per request.
 */
@Entity('list_versions')
export class ListVersionEntity {
  @PrimaryColumn({ type: 'varchar', length: 63, primaryKeyConstraintName: 'pk_list_versions' })
  name!: string;

  /** bigint: the driver returns it as a string */
  @Column({ type: 'bigint', default: 0 })
  version!: string;
}
