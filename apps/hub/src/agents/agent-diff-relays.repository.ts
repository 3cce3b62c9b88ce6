import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface RelayedDiffRequest {
  id: string;
  clusterId: string;
  targetId: string;
  source: { digest?: string; tag?: string };
  artifact: Buffer | null;
}

export interface RelayedDiffAnswer {
  unsupported: boolean;
  diffJson: string;
  error: string;
}

/** Rows older than this belong to a replica that died while it waited. */
const ABANDONED_AFTER = '15 minutes';

/** Fleet diffs relayed between replicas, in `agent_diff_relays`. */
@Injectable()
export class AgentDiffRelaysRepository {
  constructor(private readonly ds: DataSource) {}

  async create(r: RelayedDiffRequest): Promise<void> {
    await this.ds.query(`DELETE FROM agent_diff_relays WHERE created_at < now() - interval '${ABANDONED_AFTER}'`);
    await this.ds.query(`INSERT INTO agent_diff_relays (id, cluster_id, target_id, source, artifact) VALUES ($1, $2, $3, $4::jsonb, $5)`, [r.id, r.clusterId, r.targetId, JSON.stringify(r.source), r.artifact]);
  }

  /** The request, while nobody answered it and its asker still waits. */
  async unanswered(id: string): Promise<RelayedDiffRequest | undefined> {
    const rows: Array<{ id: string; cluster_id: string; target_id: string; source: RelayedDiffRequest['source']; artifact: Buffer | null }> = await this.ds.query(
      `SELECT id, cluster_id, target_id, source, artifact FROM agent_diff_relays WHERE id = $1 AND answer IS NULL`,
      [id],
    );
    const r = rows[0];
    return r && { id: r.id, clusterId: r.cluster_id, targetId: r.target_id, source: r.source, artifact: r.artifact };
  }

  /** The first answer counts (a stale second stream of the agent may answer too). */
  async answer(id: string, answer: RelayedDiffAnswer): Promise<void> {
    await this.ds.query(`UPDATE agent_diff_relays SET answer = $2::jsonb WHERE id = $1 AND answer IS NULL`, [id, JSON.stringify(answer)]);
  }

  async answerOf(id: string): Promise<RelayedDiffAnswer | undefined> {
    const rows: Array<{ answer: RelayedDiffAnswer | null }> = await this.ds.query(`SELECT answer FROM agent_diff_relays WHERE id = $1`, [id]);
    return rows[0]?.answer ?? undefined;
  }

  async remove(id: string): Promise<void> {
    await this.ds.query(`DELETE FROM agent_diff_relays WHERE id = $1`, [id]);
  }
}
