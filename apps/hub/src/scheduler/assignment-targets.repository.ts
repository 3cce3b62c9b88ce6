import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** What an agent's assignment needs of its Target and cluster. */
export interface AssignmentTarget {
  id: string;
  projectId: string;
  removalRequestedAt: Date | null;
  lastAppliedRevision: string | null;
  cluster: { id: string; name: string; groupName: string };
}

/** The columns an AssignmentTarget is made from, as a query returns them (`c`: the Target's cluster). */
export const ASSIGNMENT_TARGET_COLUMNS = 't.project_id, t.removal_requested_at, t.last_applied_revision, t.cluster_id, c.name AS cluster_name, c.group_name';

export interface AssignmentTargetRow {
  id: string;
  project_id: string;
  removal_requested_at: Date | null;
  last_applied_revision: string | null;
  cluster_id: string;
  cluster_name: string;
  group_name: string;
}

export function assignmentTargetOf(r: AssignmentTargetRow): AssignmentTarget {
  return {
    id: r.id,
    projectId: r.project_id,
    removalRequestedAt: r.removal_requested_at,
    lastAppliedRevision: r.last_applied_revision,
    cluster: { id: r.cluster_id, name: r.cluster_name, groupName: r.group_name },
  };
}

/**
 * Claimed agent Targets for their assignments, in one lean read: a digest
 * claims thousands, and reading them as entities (the runs' facts) took half
 * a second at 10,000 before the first assignment could go.
 */
@Injectable()
export class AssignmentTargetsRepository {
  constructor(private readonly ds: DataSource) {}

  async read(ids: readonly string[]): Promise<AssignmentTarget[]> {
    if (ids.length === 0) return [];
    const rows: AssignmentTargetRow[] = await this.ds.query(
      `SELECT t.id, ${ASSIGNMENT_TARGET_COLUMNS}
       FROM targets t JOIN clusters c ON c.id = t.cluster_id
       WHERE t.id = ANY(string_to_array($1, ',')::uuid[])`,
      [ids.join(',')],
    );
    return rows.map(assignmentTargetOf);
  }
}
