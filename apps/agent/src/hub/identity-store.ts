import { NotFoundError, type ObjectClient } from '@flotilla/kube';

/** What the agent keeps to be itself across restarts. */
export interface AgentIdentityRecord {
  clusterName: string;
  credential: string;
}

const FIELD_MANAGER = 'flotilla-agent';

/**
 * The agent's credential in a Secret of its namespace: written once it has
 * registered, read at every start. A lost Secret means registering again
 * with a new bootstrap token (the hub keeps the cluster's history).
 */
export class IdentityStore {
  constructor(
    private readonly client: ObjectClient,
    private readonly namespace: string,
    private readonly name: string,
  ) {}

  async load(): Promise<AgentIdentityRecord | null> {
    try {
      const s = await this.client.get({ apiVersion: 'v1', kind: 'Secret', namespace: this.namespace, name: this.name });
      const data = (s.data ?? {}) as Record<string, string>;
      if (!data.credential || !data.clusterName) return null;
      return { credential: Buffer.from(data.credential, 'base64').toString(), clusterName: Buffer.from(data.clusterName, 'base64').toString() };
    } catch (err) {
      if (err instanceof NotFoundError) return null;
      throw err;
    }
  }

  async save(record: AgentIdentityRecord): Promise<void> {
    await this.client.apply(
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: this.name, namespace: this.namespace, labels: { 'app.kubernetes.io/managed-by': 'flotilla-agent' } },
        type: 'Opaque',
        stringData: { credential: record.credential, clusterName: record.clusterName },
      },
      { dryRun: false, force: true, fieldManager: FIELD_MANAGER },
    );
  }
}
