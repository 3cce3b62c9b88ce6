import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { rowsOf } from '../scheduler/lease.repository';
import type { LinkBatch } from './agent-link-writes';

/** The cluster an agent's credential names. */
export interface AgentIdentity {
  clusterId: string;
  clusterName: string;
}

/** Connection facts of one agent cluster, for the API. */
export interface AgentLinkState {
  connected: boolean;
  statusSince: Date | null;
  agentVersion: string | null;
  lastHeartbeatAt: Date | null;
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

  /**
   * Uses a bootstrap token once: when it is current, it is cleared and the
   * credential's hash replaces any earlier one (an agent that lost its
   * Secret comes back this way). Null when unknown, used or expired.
   */
  async redeemBootstrap(tokenHash: string, credentialHash: string): Promise<AgentIdentity | null> {
    const res = await this.ds.query(
      `UPDATE agent_links l SET bootstrap_token_hash = NULL, bootstrap_expires_at = NULL, credential_hash = $2, updated_at = now()
       FROM clusters c
       WHERE l.bootstrap_token_hash = $1 AND l.bootstrap_expires_at > now() AND c.id = l.cluster_id AND c.mode = 'agent'
       RETURNING c.id, c.name`,
      [tokenHash, credentialHash],
    );
    const row = rowsOf<{ id: string; name: string }>(res)[0];
    return row ? { clusterId: row.id, clusterName: row.name } : null;
  }

  async identify(credentialHash: string): Promise<AgentIdentity | null> {
    const rows: Array<{ id: string; name: string }> = await this.ds.query(
      `SELECT c.id, c.name FROM agent_links l JOIN clusters c ON c.id = l.cluster_id WHERE l.credential_hash = $1 AND c.mode = 'agent'`,
      [credentialHash],
    );
    return rows[0] ? { clusterId: rows[0].id, clusterName: rows[0].name } : null;
  }

  /** Forgets the agent's credential and any bootstrap token: its stream is cut, it must register again. */
  async revoke(clusterId: string): Promise<void> {
    await this.ds.query(`UPDATE agent_links SET credential_hash = NULL, bootstrap_token_hash = NULL, bootstrap_expires_at = NULL, updated_at = now() WHERE cluster_id = $1`, [clusterId]);
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

  /** The current credential hash of each cluster that still has one. */
  async validCredentials(clusterIds: readonly string[]): Promise<Map<string, string>> {
    const rows: Array<{ cluster_id: string; credential_hash: string }> = await this.ds.query(
      `SELECT cluster_id, credential_hash FROM agent_links WHERE credential_hash IS NOT NULL AND cluster_id::text = ANY(string_to_array($1, ','))`,
      [clusterIds.join(',')],
    );
    return new Map(rows.map((r) => [r.cluster_id, r.credential_hash]));
  }

  async states(clusterIds: readonly string[]): Promise<Map<string, AgentLinkState>> {
    if (clusterIds.length === 0) return new Map();
    const rows: Array<{ cluster_id: string; connected: boolean; status_since: Date | null; agent_version: string | null; last_heartbeat_at: Date | null; credential_hash: string | null }> = await this.ds.query(
      `SELECT cluster_id, connected, status_since, agent_version, last_heartbeat_at, credential_hash FROM agent_links WHERE cluster_id::text = ANY(string_to_array($1, ','))`,
      [clusterIds.join(',')],
    );
    return new Map(
      rows.map((r) => [
        r.cluster_id,
        { connected: r.connected, statusSince: r.status_since && new Date(r.status_since), agentVersion: r.agent_version, lastHeartbeatAt: r.last_heartbeat_at && new Date(r.last_heartbeat_at), registered: r.credential_hash !== null },
      ]),
    );
  }
}
