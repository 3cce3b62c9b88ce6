import { Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { ProjectEntity } from '../database/entities';
import { returnedRows } from '../repositories/sql';
import { MAX_ACTIONS, type RolloutAction } from './rollout-actions';
import { UNSETTLED_STATES } from './wave-transitions';

/** The Project's actions, the last MAX_ACTIONS - 1 of them, then $2 ($3: MAX_ACTIONS - 1). */
const APPENDED = `COALESCE((SELECT jsonb_agg(x.e ORDER BY x.i) FROM jsonb_array_elements(rollout_actions) WITH ORDINALITY AS x(e, i)
  WHERE x.i > jsonb_array_length(rollout_actions) - $3), '[]'::jsonb) || jsonb_build_array($2::jsonb)`;

/** Projects whose rollout is under way, for the pass that opens waves when a soak or a deadline passed. */
@Injectable()
export class RolloutProjectsRepository {
  constructor(private readonly ds: DataSource) {}

  /**
   * Projects with waves, a resolved tag and a Target (not leaving, not
   * suspended) not yet on the tag's revision, or a wave last announced as
   * still moving or soaking: at most `limit`.
   */
  async inProgress(limit: number): Promise<ProjectEntity[]> {
    const rows: Array<{ id: string }> = await this.ds.query(
      `SELECT p.id FROM projects p
       WHERE jsonb_array_length(p.rollout_groups) > 0 AND p.source_digest IS NOT NULL AND p.deletion_requested_at IS NULL AND NOT p.suspend
         AND (EXISTS (SELECT 1 FROM targets t WHERE t.project_id = p.id AND t.removal_requested_at IS NULL AND t.phase NOT IN ('Suspended', 'Deleting')
           AND t.last_applied_revision IS DISTINCT FROM p.source_tag || '@' || p.source_digest)
           -- a wave last told soaking or progressing ends with no report to say so (the last wave's soak, a deadline)
           OR p.rollout_wave_states->'states' ?| $2::text[])
       ORDER BY p.id LIMIT $1`,
      [limit, [...UNSETTLED_STATES]],
    );
    return rows.length === 0 ? [] : this.ds.getRepository(ProjectEntity).findBy({ id: In(rows.map((r) => r.id)) });
  }

  /** Appends `action` to the Project's rollout actions in one statement, keeping the last MAX_ACTIONS. */
  async appendAction(projectId: string, action: RolloutAction): Promise<void> {
    await this.ds.query(`UPDATE projects SET rollout_actions = ${APPENDED} WHERE id = $1`, [projectId, JSON.stringify(action), MAX_ACTIONS - 1]);
  }

  /**
   * Appends a rollback of `action.revision` unless one stands already (no
   * retry after it): two passes that see the same failed wave at once roll
   * it back once. The row lock orders them; the second sees the first's.
   */
  async appendRollback(projectId: string, action: RolloutAction): Promise<boolean> {
    const res: unknown = await this.ds.query(
      `UPDATE projects SET rollout_actions = ${APPENDED}
       WHERE id = $1 AND COALESCE((SELECT x.e->>'action' FROM jsonb_array_elements(rollout_actions) WITH ORDINALITY AS x(e, i)
         WHERE x.e->>'revision' = $4 AND x.e->>'action' IN ('rollback', 'retry') ORDER BY x.i DESC LIMIT 1), '') <> 'rollback'
       RETURNING id`,
      [projectId, JSON.stringify(action), MAX_ACTIONS - 1, action.revision],
    );
    return returnedRows(res).length === 1;
  }
}
