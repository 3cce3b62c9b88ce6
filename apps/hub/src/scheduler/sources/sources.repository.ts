import { returnedRows } from '../../repositories/sql';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** A Project whose source check this replica claimed. */
export interface DueSource {
  id: string;
  name: string;
  namespace: string;
  serviceAccountName: string;
  repository: string;
  tag: string;
  registryCredentialId: string | null;
  digest: string | null;
  error: string | null;
}

// A fixed 64-bit key for the poll's advisory lock ("flotsrc1" in ASCII).
const SOURCE_POLL_LOCK = '7380396435297166129';

/** `$from, $from+1, …` for an IN list (arrays as parameters differ between node-postgres and PGlite). */
function placeholders(values: unknown[], from: number): string {
  return values.map((_, i) => `$${from + i}`).join(', ');
}

const RETURNED = 'id, name, namespace, service_account_name, source_repository, source_tag, registry_credential_id, source_digest, source_error';

function dueSource(r: Record<string, string | null>): DueSource {
  return {
    id: r.id!,
    name: r.name!,
    namespace: r.namespace!,
    serviceAccountName: r.service_account_name!,
    repository: r.source_repository!,
    tag: r.source_tag!,
    registryCredentialId: r.registry_credential_id,
    digest: r.source_digest,
    error: r.source_error,
  };
}

/** The scheduler's reads and writes of Projects' polled sources. */
@Injectable()
export class SourcesRepository {
  constructor(private readonly ds: DataSource) {}

  /**
   * Claims the Projects whose tag is due for resolution (never checked, or
   * checked longer than `pollMs` ago) by stamping the check time, under an
   * advisory lock: a replica that finds it taken skips this tick's poll, so
   * each repository + tag is resolved once per poll across replicas.
   */
  async claimDueSources(pollMs: number, limit: number): Promise<DueSource[]> {
    return this.ds.transaction(async (m) => {
      // One replica claims at a time, so Projects sharing a tag are never split
      // between two replicas' polls (row locks alone would interleave them).
      const [{ locked }]: Array<{ locked: boolean }> = await m.query(`SELECT pg_try_advisory_xact_lock($1) AS locked`, [SOURCE_POLL_LOCK]);
      if (!locked) return [];
      const res = await m.query(
        `WITH due AS (
           SELECT id FROM projects
           WHERE deletion_requested_at IS NULL AND suspend = false
             AND (source_checked_at IS NULL OR source_checked_at <= now() - $1 * interval '1 millisecond')
           ORDER BY source_checked_at NULLS FIRST, id
           LIMIT $2
           FOR UPDATE SKIP LOCKED
         )
         UPDATE projects p SET source_checked_at = now() FROM due WHERE p.id = due.id
         RETURNING ${RETURNED.split(', ').map((c) => `p.${c}`).join(', ')}`,
        [pollMs, limit],
      );
      return returnedRows<Record<string, string | null>>(res).map(dueSource);
    });
  }

  /**
   * Claims one Project's source check now, whenever it was last checked (a
   * trigger: creation, a new source, a manual reconcile); undefined when the
   * Project is gone, suspended or being deleted.
   */
  async claimSource(projectId: string): Promise<DueSource | undefined> {
    const res = await this.ds.query(
      `UPDATE projects SET source_checked_at = now()
       WHERE id = $1 AND deletion_requested_at IS NULL AND suspend = false
       RETURNING ${RETURNED}`,
      [projectId],
    );
    return returnedRows<Record<string, string | null>>(res).map(dueSource)[0];
  }

  async recordDigest(projectIds: string[], digest: string): Promise<void> {
    if (projectIds.length === 0) return;
    await this.ds.query(`UPDATE projects SET source_digest = $1, source_error = NULL WHERE id IN (${placeholders(projectIds, 2)})`, [digest, ...projectIds]);
  }

  async recordSourceError(projectIds: string[], error: string): Promise<void> {
    if (projectIds.length === 0) return;
    await this.ds.query(`UPDATE projects SET source_error = $1 WHERE id IN (${placeholders(projectIds, 2)})`, [error, ...projectIds]);
  }
}
