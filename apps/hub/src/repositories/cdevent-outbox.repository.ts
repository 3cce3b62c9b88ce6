import type { PastRun } from '@flotilla/cdevents';
import type { EntityManager } from 'typeorm';
import type { DeliveryState, OutboxFormat, SealedSinkHeader, SealedWebhook } from '../database/entities';
import { isoTime, returnedRows } from './sql';

/** What an outbound event needs of its Project; null sink: the Project sends no events. */
export interface ProjectSink {
  name: string;
  namespace: string;
  repository: string;
  sinkUrl: string | null;
  sinkHeader: SealedSinkHeader | null;
  /** the chat webhook told of rollout waves, sealed */
  webhook: SealedWebhook | null;
}

export interface OutboxInsert {
  eventId: string;
  projectId: string;
  projectName: string;
  type: string;
  payload: object;
  sinkUrl: string;
  sinkHeader: SealedSinkHeader | null;
  /** default cdevent; a slack row carries its sealed webhook and, as sinkUrl, only the webhook's scheme and host */
  format?: OutboxFormat;
  webhook?: SealedWebhook | null;
}

/** A row claimed for delivery. */
export interface ClaimedDelivery {
  id: string;
  eventId: string;
  projectId: string;
  projectName: string;
  type: string;
  payload: Record<string, unknown>;
  sinkUrl: string;
  sinkHeader: SealedSinkHeader | null;
  format: OutboxFormat;
  webhook: SealedWebhook | null;
  attempts: number;
}

/** What the API shows of a delivery. */
export interface DeliveryViewRow {
  id: string;
  type: string;
  state: DeliveryState;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
}

/**
 * The CDEvents outbox and the receipts of inbound events. Deliveries are
 * claimed with a lease on the oldest pending row of each Project only, so a
 * Project's events leave in order and a crashed replica's claims expire.
 */
export class CdeventOutboxRepository {
  constructor(private readonly db: EntityManager) {}

  async sinkOf(projectId: string): Promise<ProjectSink | null> {
    const rows = await this.db.query(
      `SELECT name, namespace, source_repository AS repository, cdevents_sink AS "sinkUrl", cdevents_sink_header AS "sinkHeader",
         notification_webhook AS webhook FROM projects WHERE id = $1`,
      [projectId],
    );
    return (rows as ProjectSink[])[0] ?? null;
  }

  async insert(row: OutboxInsert): Promise<void> {
    await this.db.query(
      `INSERT INTO cdevent_outbox (event_id, project_id, project_name, type, payload, sink_url, sink_header, format, webhook) VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7::jsonb, $8, $9::jsonb)`,
      [row.eventId, row.projectId, row.projectName, row.type, JSON.stringify(row.payload), row.sinkUrl, row.sinkHeader ? JSON.stringify(row.sinkHeader) : null, row.format ?? 'cdevent', row.webhook ? JSON.stringify(row.webhook) : null],
    );
  }

  /**
   * Leases up to `limit` deliveries: the oldest pending row of each Project
   * and destination (its CDEvents sink, its chat webhook), when it is due and
   * nobody else holds it: one failing destination never holds the other back. Two replicas claiming at once
   * cannot both win a row: the UPDATE re-checks the lease on the locked row.
   */
  async claim(owner: string, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
    const res = await this.db.query(
      `UPDATE cdevent_outbox o SET lease_owner = $1, lease_expires_at = now() + $2 * interval '1 millisecond'
       WHERE o.id IN (
         SELECT h.id FROM (SELECT DISTINCT ON (project_id, format) id, next_attempt_at, lease_expires_at FROM cdevent_outbox WHERE state = 'pending' ORDER BY project_id, format, id) h
         WHERE h.next_attempt_at <= now() AND (h.lease_expires_at IS NULL OR h.lease_expires_at < now())
         ORDER BY h.id LIMIT $3)
       AND o.state = 'pending' AND (o.lease_expires_at IS NULL OR o.lease_expires_at < now())
       RETURNING o.id::text AS id, o.event_id AS "eventId", o.project_id AS "projectId", o.project_name AS "projectName", o.type, o.payload,
         o.sink_url AS "sinkUrl", o.sink_header AS "sinkHeader", o.format, o.webhook, o.attempts`,
      [owner, leaseMs, limit],
    );
    return returnedRows<ClaimedDelivery>(res).sort((a, b) => Number(BigInt(a.id) - BigInt(b.id)));
  }

  /** Delivered; false when the lease was lost meanwhile (another replica delivers it again: at least once). */
  async delivered(id: string, owner: string): Promise<boolean> {
    const res = await this.db.query(
      `UPDATE cdevent_outbox SET state = 'delivered', delivered_at = now(), attempts = attempts + 1, last_error = NULL, lease_owner = NULL, lease_expires_at = NULL
       WHERE id = $1 AND lease_owner = $2 RETURNING id`,
      [id, owner],
    );
    return returnedRows(res).length === 1;
  }

  /** A failed attempt: retried after `retryMs`, or marked failed once `maxAttempts` are spent. Returns the new state. */
  async attemptFailed(id: string, owner: string, error: string, retryMs: number, maxAttempts: number): Promise<DeliveryState | null> {
    const res = await this.db.query(
      `UPDATE cdevent_outbox SET attempts = attempts + 1, last_error = $3,
         state = CASE WHEN attempts + 1 >= $5 THEN 'failed' ELSE 'pending' END,
         next_attempt_at = now() + $4 * interval '1 millisecond', lease_owner = NULL, lease_expires_at = NULL
       WHERE id = $1 AND lease_owner = $2 RETURNING state`,
      [id, owner, error, retryMs, maxAttempts],
    );
    return returnedRows<{ state: DeliveryState }>(res)[0]?.state ?? null;
  }

  /**
   * Re-seals up to `limit` sink headers still under another key than
   * `currentKeyId` or sealed before bindings, in the Projects' settings and in the outbox rows that
   * copied them; `reseal` opens and seals one. A header changed meanwhile (an
   * edit, a concurrent rotation) is left to its writer. Returns how many were
   * looked at and how many re-sealed.
   */
  async resealSinkHeaders(
    currentKeyId: string,
    limit: number,
    reseal: (h: SealedSinkHeader, to: { projectId: string; sinkUrl: string }) => SealedSinkHeader,
  ): Promise<{ seen: number; resealed: number }> {
    let seen = 0;
    let resealed = 0;
    // each header is bound to its Project and sink URL: the project's own, or the one its outbox row goes to
    for (const [table, column, project, sink] of [
      ['projects', 'cdevents_sink_header', 'id', 'cdevents_sink'],
      ['cdevent_outbox', 'sink_header', 'project_id', 'sink_url'],
    ] as const) {
      const rows = (await this.db.query(
        `SELECT id::text AS id, ${column} AS header, ${project}::text AS "projectId", coalesce(${sink}, '') AS "sinkUrl" FROM ${table}
          WHERE ${column} IS NOT NULL AND (${column}->>'keyId' <> $1 OR ${column}->>'bound' IS NULL) ORDER BY id LIMIT $2`,
        [currentKeyId, limit - seen],
      )) as Array<{ id: string; header: SealedSinkHeader; projectId: string; sinkUrl: string }>;
      for (const row of rows) {
        const sealed = reseal(row.header, { projectId: row.projectId, sinkUrl: row.sinkUrl });
        const res = await this.db.query(`UPDATE ${table} SET ${column} = $1::jsonb WHERE id = $2 AND ${column} = $3::jsonb RETURNING id`, [JSON.stringify(sealed), row.id, JSON.stringify(row.header)]);
        if (returnedRows(res).length === 1) resealed++;
      }
      seen += rows.length;
      if (seen >= limit) break;
    }
    return { seen, resealed };
  }

  /**
   * Re-seals up to `limit` chat webhooks still under another key than
   * `currentKeyId`: the Projects' and the outbox rows' copies, each bound to
   * its Project. One changed meanwhile is left to its writer.
   */
  async resealWebhooks(currentKeyId: string, limit: number, reseal: (w: SealedWebhook, projectId: string) => SealedWebhook): Promise<{ seen: number; resealed: number }> {
    let seen = 0;
    let resealed = 0;
    for (const [table, column, project] of [
      ['projects', 'notification_webhook', 'id'],
      ['cdevent_outbox', 'webhook', 'project_id'],
    ] as const) {
      const rows = (await this.db.query(
        `SELECT id::text AS id, ${column} AS webhook, ${project}::text AS "projectId" FROM ${table} WHERE ${column} IS NOT NULL AND ${column}->>'keyId' <> $1 ORDER BY id LIMIT $2`,
        [currentKeyId, limit - seen],
      )) as Array<{ id: string; webhook: SealedWebhook; projectId: string }>;
      for (const row of rows) {
        const sealed = reseal(row.webhook, row.projectId);
        const res = await this.db.query(`UPDATE ${table} SET ${column} = $1::jsonb WHERE id = $2 AND ${column} = $3::jsonb RETURNING id`, [JSON.stringify(sealed), row.id, JSON.stringify(row.webhook)]);
        if (returnedRows(res).length === 1) resealed++;
      }
      seen += rows.length;
      if (seen >= limit) break;
    }
    return { seen, resealed };
  }

    /** Rows by state, for the metrics. */
  async countByState(): Promise<Record<DeliveryState, number>> {
    const rows = (await this.db.query(`SELECT state, count(*)::int AS n FROM cdevent_outbox WHERE state <> 'delivered' GROUP BY state`)) as Array<{ state: DeliveryState; n: number }>;
    const counts = { pending: 0, delivered: 0, failed: 0 };
    for (const r of rows) counts[r.state] = r.n;
    return counts;
  }

  /**
   * The newest deliveries of the Project named `projectName`: of the live
   * Project only (a name taken again after a deletion must not show the
   * earlier Project's, which may have been another tenant's), or, with no
   * live Project of that name, of every deleted one that had it. Undefined
   * when there is no such Project and never were any deliveries.
   */
  async ofProject(projectName: string, limit: number, state: DeliveryState | undefined): Promise<DeliveryViewRow[] | undefined> {
    const rows = (await this.db.query(
      `WITH live AS (SELECT id FROM projects WHERE name = $1)
       SELECT o.event_id AS id, o.type, o.state, o.attempts, o.last_error AS "lastError", ${isoTime('o.created_at')} AS "createdAt",
         CASE WHEN o.state = 'pending' THEN ${isoTime('o.next_attempt_at')} END AS "nextAttemptAt", ${isoTime('o.delivered_at')} AS "deliveredAt"
       FROM cdevent_outbox o
       WHERE o.project_name = $1 AND ($3::text IS NULL OR o.state = $3)
         AND (NOT EXISTS (SELECT 1 FROM live) OR o.project_id IN (SELECT id FROM live))
       ORDER BY o.id DESC LIMIT $2`,
      [projectName, limit, state ?? null],
    )) as DeliveryViewRow[];
    if (rows.length > 0) return rows;
    const exists = (await this.db.query(`SELECT 1 FROM projects WHERE name = $1 UNION ALL SELECT 1 FROM cdevent_outbox WHERE project_name = $1 LIMIT 1`, [projectName])) as unknown[];
    return exists.length > 0 ? [] : undefined;
  }

  /** The finished runs of a Target, newest first: what the service events decide deployed, upgraded or rolled back from. */
  async pastRuns(targetId: string, limit = 100): Promise<PastRun[]> {
    return (await this.db.query(`SELECT revision, instances FROM runs WHERE target_id = $1 AND result IN ('Succeeded', 'Failed') ORDER BY started_at DESC LIMIT $2`, [targetId, limit])) as PastRun[];
  }

  /** Records an inbound event's (source, id); false when it was recorded before. */
  async firstReceipt(source: string, eventId: string): Promise<boolean> {
    const rows = (await this.db.query(`INSERT INTO cdevent_receipts (source, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING event_id`, [source, eventId])) as unknown[];
    return returnedRows(rows).length === 1;
  }

  /** Forgets receipts older than `receiptAgeMs` (a replay after that is taken again) and delivered or failed rows older than `keepMs`. */
  async prune(receiptAgeMs: number, keepMs: number): Promise<void> {
    await this.db.query(`DELETE FROM cdevent_receipts WHERE received_at < now() - $1 * interval '1 millisecond'`, [receiptAgeMs]);
    await this.db.query(`DELETE FROM cdevent_outbox WHERE state <> 'pending' AND created_at < now() - $1 * interval '1 millisecond'`, [keepMs]);
  }

  /** Projects (id and name) whose source is `repository` (normalised: no scheme, lower case), not being deleted. */
  async projectsWithRepository(repository: string): Promise<Array<{ id: string; name: string }>> {
    return (await this.db.query(
      `SELECT id, name FROM projects WHERE deletion_requested_at IS NULL
         AND rtrim(lower(regexp_replace(source_repository, '^[a-zA-Z][a-zA-Z0-9+.-]*://', '')), '/') = $1 ORDER BY name`,
      [repository],
    )) as Array<{ id: string; name: string }>;
  }
}
