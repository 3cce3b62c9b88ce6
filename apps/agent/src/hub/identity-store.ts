import { NotFoundError, type ObjectClient } from '@flotilla/kube';

/** What the agent keeps to be itself across restarts: its key and the hub's certificate of it. */
export interface AgentIdentityRecord {
  clusterName: string;
  /** PEM PKCS#8 ECDSA P-256 key, made by the agent; it never leaves the cluster */
  keyPem: string;
  /** PEM client certificate from the hub's agent CA */
  certPem: string;
}

const FIELD_MANAGER = 'flotilla-agent';

/**
 * The agent's key and client certificate in a Secret of its namespace
 * (`tls.key`, `tls.crt`, `clusterName`): written when it registers and
 * whenever the certificate is renewed, read at every start. A lost Secret
 * means registering again with a new bootstrap token (the hub keeps the
 * cluster's history); so does a Secret of an older agent that holds a
 * bearer `credential` instead of a certificate.
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
      if (!data['tls.key'] || !data['tls.crt'] || !data.clusterName) return null;
      const text = (k: string) => Buffer.from(data[k], 'base64').toString();
      return { clusterName: text('clusterName'), keyPem: text('tls.key'), certPem: text('tls.crt') };
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
        stringData: { clusterName: record.clusterName, 'tls.key': record.keyPem, 'tls.crt': record.certPem },
      },
      { dryRun: false, force: true, fieldManager: FIELD_MANAGER },
    );
  }
}
