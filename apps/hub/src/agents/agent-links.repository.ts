import { isoTime, returnedRows } from '../repositories/sql';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { LinkBatch } from './agent-link-writes';

/** The cluster an agent's certificate names. */
export interface AgentIdentity {
  clusterId: string;
  clusterName: string;
}

/** Connection facts of one agent cluster, for the API (times as ISO 8601 in UTC, as the views show them). */
export interface AgentLinkState {
  connected: boolean;
  statusSince: string | null;
  agentVersion: string | null;
  lastHeartbeatAt: string | null;
  registered: boolean;
}

/**
 * Identity and connection state of agents, in `agent_links`. Times are the
 * database's so replicas agree on expiry.
 */
@Injectable()
export class AgentLinksRepository {
  constructor(private readonly ds: DataSource) {}

  /** Stores a fresh bootstrap token (its hash) for the cluster; any earlier unused one stops working. */
  async issueBootstrap(clusterId: string, tokenHash: string, ttlMs: number): Promise<Date> {
    const rows: Array<{ bootstrap_expires_at: Date }> = await this.ds.query(
      `INSERT INTO agent_links (cluster_id, bootstrap_token_hash, bootstrap_expires_at)
       VALUES ($1, $2, now() + $3 * interval '1 millisecond')
       ON CONFLICT (cluster_id) DO UPDATE SET bootstrap_token_hash = EXCLUDED.bootstrap_token_hash, bootstrap_expires_at = EXCLUDED.bootstrap_expires_at, updated_at = now()
       RETURNING bootstrap_expires_at`,
      [clusterId, tokenHash, ttlMs],
    );
    return new Date(rows[0].bootstrap_expires_at);
  }

  /** The cluster a current bootstrap token belongs to, without using it (null: unknown, used or expired). */
  async bootstrapIdentity(tokenHash: string): Promise<AgentIdentity | null> {
    const rows: Array<{ id: string; name: string }> = await this.ds.query(
      `SELECT c.id, c.name FROM agent_links l JOIN clusters c ON c.id = l.cluster_id WHERE l.bootstrap_token_hash = $1 AND l.bootstrap_expires_at > now() AND c.mode = 'agent'`,
      [tokenHash],
    );
    return rows[0] ? { clusterId: rows[0].id, clusterName: rows[0].name } : null;
  }

  /**
   * Uses a bootstrap token once: when it is still current, it is cleared and
   * the certificate's fingerprint replaces any earlier one (an agent that
   * lost its Secret comes back this way). Null when unknown, used or expired.
   */
  async redeemBootstrap(tokenHash: string, cert: { fingerprint: string; notAfter: Date }): Promise<AgentIdentity | null> {
    const res = await this.ds.query(
      `UPDATE agent_links l SET bootstrap_token_hash = NULL, bootstrap_expires_at = NULL, cert_fingerprint = $2, cert_expires_at = $3, previous_cert_fingerprint = NULL, previous_cert_until = NULL, updated_at = now()
       FROM clusters c
       WHERE l.bootstrap_token_hash = $1 AND l.bootstrap_expires_at > now() AND c.id = l.cluster_id AND c.mode = 'agent'
       RETURNING c.id, c.name`,
      [tokenHash, cert.fingerprint, cert.notAfter],
    );
    const row = returnedRows<{ id: string; name: string }>(res)[0];
    return row ? { clusterId: row.id, clusterName: row.name } : null;
  }

  /** The cluster whose agent holds the certificate of `fingerprint`: its current one, or the one it is renewing away from. */
  async identify(fingerprint: string): Promise<AgentIdentity | null> {
    const rows: Array<{ id: string; name: string }> = await this.ds.query(
      `SELECT c.id, c.name FROM agent_links l JOIN clusters c ON c.id = l.cluster_id
       WHERE ((l.cert_fingerprint = $1 AND l.cert_expires_at > now()) OR (l.previous_cert_fingerprint = $1 AND l.previous_cert_until > now())) AND c.mode = 'agent'`,
      [fingerprint],
    );
    return rows[0] ? { clusterId: rows[0].id, clusterName: rows[0].name } : null;
  }

  /**
   * A renewal: the new certificate becomes the current one, and the one the
   * renewing stream holds stays valid for `overlapMs` (the agent reconnects
   * with the new one long before, unless it died before saving it). False
   * when the stream's certificate no longer counts.
   */
  async renewed(clusterId: string, fromFingerprint: string, cert: { fingerprint: string; notAfter: Date }, overlapMs: number): Promise<boolean> {
    const res = await this.ds.query(
      `UPDATE agent_links SET previous_cert_fingerprint = $2, previous_cert_until = now() + $5 * interval '1 millisecond', cert_fingerprint = $3, cert_expires_at = $4, updated_at = now()
       WHERE cluster_id = $1 AND (cert_fingerprint = $2 OR (previous_cert_fingerprint = $2 AND previous_cert_until > now()))
       RETURNING cluster_id`,
      [clusterId, fromFingerprint, cert.fingerprint, cert.notAfter, overlapMs],
    );
    return returnedRows(res).length === 1;
  }

  /** The agent connected with its current certificate: the one it renewed away from stops counting. */
  async adopted(clusterId: string, fingerprint: string): Promise<void> {
    await this.ds.query(`UPDATE agent_links SET previous_cert_fingerprint = NULL, previous_cert_until = NULL WHERE cluster_id = $1 AND cert_fingerprint = $2 AND previous_cert_fingerprint IS NOT NULL`, [clusterId, fingerprint]);
  }

  /** Forgets the agent's certificates and any bootstrap token: its stream is cut, it must register again. */
  async revoke(clusterId: string): Promise<void> {
    await this.ds.query(
      `UPDATE agent_links SET cert_fingerprint = NULL, cert_expires_at = NULL, previous_cert_fingerprint = NULL, previous_cert_until = NULL, bootstrap_token_hash = NULL, bootstrap_expires_at = NULL, updated_at = now() WHERE cluster_id = $1`,
      [clusterId],
    );
  }

  /** A batch of this replica's link writes (see AgentLinkWrites), one statement per kind, in one transaction. */
  async writeBatch(replica: string, b: LinkBatch): Promise<void> {
    await this.ds.transaction(async (m) => {
      if (b.connected.size > 0) {
        await m.query(
          `UPDATE agent_links l SET connected = true, status_since = now(), replica = $1, agent_version = x.v, last_heartbeat_at = now(), updated_at = now()
           FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, v text) WHERE l.cluster_id = x.id`,
          [replica, JSON.stringify([...b.connected].map(([id, v]) => ({ id, v })))],
        );
      }
      if (b.disconnected.length > 0) {
        // an id list the planner sees as a constant array: one primary key probe per id (a join on a set-returning function was planned as a nested loop over every row)
        await m.query(`UPDATE agent_links SET connected = false, status_since = now(), updated_at = now() WHERE cluster_id = ANY(string_to_array($2, ',')::uuid[]) AND replica = $1 AND connected`, [
          replica,
          b.disconnected.join(','),
        ]);
      }
      if (b.heartbeats.length > 0) {
        await m.query(`UPDATE agent_links SET last_heartbeat_at = now() WHERE cluster_id = ANY(string_to_array($2, ',')::uuid[]) AND replica = $1`, [replica, b.heartbeats.join(',')]);
      }
    });
  }

  /** A replica that starts holds no stream: whatever it held before it died is gone. */
  async disconnectAllOf(replica: string): Promise<void> {
    await this.ds.query(`UPDATE agent_links SET connected = false, status_since = now(), updated_at = now() WHERE replica = $1 AND connected`, [replica]);
  }

  /**
   * Every link marked connected, marked disconnected: for a hub that is the
   * only one on its database (the embedded one), whose rows may come from
   * another process, such as a copy of the data directory restored from a
   * backup, where the replica names in them are not this one's.
   */
  async disconnectAll(): Promise<void> {
    await this.ds.query(`UPDATE agent_links SET connected = false, status_since = now(), updated_at = now() WHERE connected`);
  }

  /**
   * The certificate fingerprints each cluster's agent may use now (a
   * renewed-away one only while it overlaps). TLS checks expiry only when a
   * stream opens: a stream outliving its certificate is cut here.
   */
  async validFingerprints(clusterIds: readonly string[]): Promise<Map<string, Set<string>>> {
    const rows: Array<{ cluster_id: string; fingerprint: string }> = await this.ds.query(
      // a uuid array PostgreSQL hashes; ids joined as rows were rescanned once per link when the planner guessed their size low
      `SELECT cluster_id, cert_fingerprint AS fingerprint FROM agent_links WHERE cert_fingerprint IS NOT NULL AND cert_expires_at > now() AND cluster_id = ANY(string_to_array($1, ',')::uuid[])
       UNION ALL
       SELECT cluster_id, previous_cert_fingerprint FROM agent_links WHERE previous_cert_fingerprint IS NOT NULL AND previous_cert_until > now() AND cluster_id = ANY(string_to_array($1, ',')::uuid[])`,
      [clusterIds.join(',')],
    );
    const out = new Map<string, Set<string>>();
    for (const r of rows) out.set(r.cluster_id, (out.get(r.cluster_id) ?? new Set()).add(r.fingerprint));
    return out;
  }

  async states(clusterIds: readonly string[]): Promise<Map<string, AgentLinkState>> {
    if (clusterIds.length === 0) return new Map();
    const rows: Array<{ cluster_id: string; connected: boolean; status_since: string | null; agent_version: string | null; last_heartbeat_at: string | null; cert_fingerprint: string | null }> = await this.ds.query(
      `SELECT cluster_id, connected, ${isoTime('status_since')} AS status_since, agent_version, ${isoTime('last_heartbeat_at')} AS last_heartbeat_at, cert_fingerprint
       FROM agent_links WHERE cluster_id = ANY(string_to_array($1, ',')::uuid[])`,
      [clusterIds.join(',')],
    );
    return new Map(
      rows.map((r) => [
        r.cluster_id,
        { connected: r.connected, statusSince: r.status_since, agentVersion: r.agent_version, lastHeartbeatAt: r.last_heartbeat_at, registered: r.cert_fingerprint !== null },
      ]),
    );
  }
}
