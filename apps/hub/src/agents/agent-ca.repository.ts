import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CryptoRepository } from '../crypto/crypto.repository';
import { AGENT_CA_BINDING } from '../credentials/credential-binding';
import { CredentialsRepository } from '../repositories/credentials.repository';
import { returnedRows } from '../repositories/sql';

/** The agents' CA as stored: its certificate, and its key opened from the credentials store. */
export interface StoredAgentCa {
  certPem: string;
  keyPem: string;
}

const CA_NAME = 'agents';
/** the credentials-store kind of the CA's key: sealed with the hub's keys, re-sealed by key rotation like every credential */
export const AGENT_CA_KEY_KIND = 'agentCaKey';

/** The one agent CA row every replica shares. */
@Injectable()
export class AgentCaRepository {
  constructor(
    private readonly ds: DataSource,
    private readonly crypto: CryptoRepository,
  ) {}

  async load(): Promise<StoredAgentCa | null> {
    const rows: Array<{ certificate: string; key_credential_id: string }> = await this.ds.query(`SELECT certificate, key_credential_id FROM agent_ca WHERE name = $1`, [CA_NAME]);
    if (!rows[0]) return null;
    const key = await new CredentialsRepository(this.ds.manager, this.crypto).reveal<{ keyPem: string }>(rows[0].key_credential_id, AGENT_CA_BINDING);
    if (!key) throw new Error('the agent CA\'s key is missing from the credentials store');
    return { certPem: rows[0].certificate, keyPem: key.secret.keyPem };
  }

  /**
   * Stores `ca` unless a CA is there already; either way returns the one
   * stored. Two replicas starting at once: the second insert waits for the
   * first to commit, inserts nothing and rolls back its sealed key, and both
   * use the first one's CA.
   */
  async insertOrLoad(ca: StoredAgentCa): Promise<StoredAgentCa> {
    await this.ds.transaction(async (m) => {
      const key = await new CredentialsRepository(m, this.crypto).store(AGENT_CA_KEY_KIND, { keyPem: ca.keyPem }, AGENT_CA_BINDING);
      const res = await m.query(`INSERT INTO agent_ca (name, certificate, key_credential_id) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING RETURNING name`, [CA_NAME, ca.certPem, key.id]);
      if (returnedRows(res).length === 0) throw new LostRace();
    }).catch((err: unknown) => {
      if (!(err instanceof LostRace)) throw err;
    });
    const stored = await this.load();
    if (!stored) throw new Error('the agent CA vanished right after it was stored');
    return stored;
  }
}

class LostRace extends Error {}
