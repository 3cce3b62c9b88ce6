// §5.5: the `timoni.<instance>` state Secret, read and written exactly as Timoni does.
import {
  APP_COMPONENT_LABEL, APP_CREATED_BY_LABEL, APP_NAME_LABEL, BUNDLE_NAME_LABEL, CREATED_BY, DELETING_ANNOTATION,
  FIELD_MANAGER, STATE_COMPONENT, STATE_SECRET_PREFIX, STATE_SECRET_TYPE,
} from './constants';
import { InventoryError } from './errors';
import { decodeInstanceRecord, encodeInstanceRecord, rfc3339, type InstanceRecord } from './instance-state';
import { addressOf, type ObjectClient } from './object-client';
import { isImmutableError } from './resources-apply';
import type { KubeObject } from './types';

export interface StoredInstance {
  record: InstanceRecord;
  /** the intended revision of an unfinished upgrade (`data.pending`) */
  pending?: InstanceRecord;
  secret: KubeObject;
}

export const stateSecretName = (instance: string) => `${STATE_SECRET_PREFIX}${instance}`;

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const unb64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');

/** The Secret Timoni writes for a record (pending: the stored bytes kept, `pending` added). */
export function stateSecret(record: InstanceRecord, pending?: InstanceRecord, storedInstanceData?: string): KubeObject {
  const { name, namespace, labels } = record.metadata;
  const data: Record<string, string> = { instance: storedInstanceData ?? b64(encodeInstanceRecord(record)) };
  if (pending) data.pending = b64(encodeInstanceRecord(pending));
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: stateSecretName(name),
      namespace,
      labels: {
        [APP_NAME_LABEL]: name,
        [APP_COMPONENT_LABEL]: STATE_COMPONENT,
        [APP_CREATED_BY_LABEL]: CREATED_BY,
        ...(labels ?? {}),
      },
    },
    type: STATE_SECRET_TYPE,
    data,
  };
}

export class InstanceStorage {
  /**
   * `namespacesSeen`: namespaces known to exist, for a storage that lives one
   * run (its instances often share a namespace, and each is written twice).
   */
  constructor(
    private readonly client: ObjectClient,
    private readonly namespacesSeen?: Set<string>,
  ) {}

  /** The stored instance, or undefined when there is none. */
  async read(namespace: string, name: string): Promise<StoredInstance | undefined> {
    const secret = await this.client.getOptional({ apiVersion: 'v1', kind: 'Secret', namespace, name: stateSecretName(name) });
    return secret ? this.decode(secret) : undefined;
  }

  private decode(secret: KubeObject): StoredInstance {
    const where = `Secret/${secret.metadata.namespace}/${secret.metadata.name}`;
    const data = (secret.data ?? {}) as Record<string, string>;
    if (!data.instance) throw new InventoryError(`${where}: has no data.instance`);
    const record = decodeInstanceRecord(unb64(data.instance), where);
    const pending = data.pending ? decodeInstanceRecord(unb64(data.pending), `${where} (pending)`) : undefined;
    return { record, pending, secret };
  }

  /** Instances created by Timoni (or Flotilla), optionally of one bundle, oldest first. */
  async list(options: { namespace?: string; bundle?: string } = {}): Promise<StoredInstance[]> {
    const selector = [`${APP_COMPONENT_LABEL}=${STATE_COMPONENT}`, `${APP_CREATED_BY_LABEL}=${CREATED_BY}`];
    if (options.bundle) selector.push(`${BUNDLE_NAME_LABEL}=${options.bundle}`);
    const secrets = await this.client.list('v1', 'Secret', { namespace: options.namespace, labelSelector: selector.join(',') });
    return secrets
      .filter((s) => s.type === STATE_SECRET_TYPE)
      .sort((a, b) => String(a.metadata.creationTimestamp ?? '').localeCompare(String(b.metadata.creationTimestamp ?? '')))
      .map((s) => this.decode(s));
  }

  /** Creates the instance namespace (labelled created-by timoni) when it does not exist. */
  async ensureNamespace(namespace: string): Promise<void> {
    if (this.namespacesSeen?.has(namespace)) return;
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } };
    if (!(await this.client.getOptional(addressOf(ns)))) {
      await this.client.apply(
        { ...ns, metadata: { name: namespace, labels: { [APP_CREATED_BY_LABEL]: CREATED_BY } } },
        { dryRun: false, force: true, fieldManager: FIELD_MANAGER },
      );
    }
    this.namespacesSeen?.add(namespace);
  }

  private async applySecret(secret: KubeObject): Promise<void> {
    const call = { dryRun: false, force: true, fieldManager: FIELD_MANAGER };
    try {
      await this.client.apply(secret, call);
    } catch (err) {
      // a legacy Opaque state Secret cannot change type in place
      if (!isImmutableError(err)) throw err;
      await this.client.delete(addressOf(secret), 'Background');
      await this.client.apply(secret, call);
    }
  }

  /** Writes the final state: `data.instance` = record, `data.pending` dropped. */
  async write(record: InstanceRecord): Promise<void> {
    await this.ensureNamespace(record.metadata.namespace);
    await this.applySecret(stateSecret(record));
  }

  /** Records an upgrade in progress: stored bytes untouched, `data.pending` = the intended record. */
  async writePending(pending: InstanceRecord): Promise<void> {
    const stored = await this.client.getOptional({ apiVersion: 'v1', kind: 'Secret', namespace: pending.metadata.namespace, name: stateSecretName(pending.metadata.name) });
    const storedData = ((stored?.data ?? {}) as Record<string, string>).instance;
    if (!storedData) return this.write(pending);
    const current = this.decode(stored!).record;
    await this.applySecret(stateSecret(current, pending, storedData));
  }

  /** Marks the state Secret as being deleted (`status.timoni.sh/deleting` = now, RFC3339). */
  async markDeleting(namespace: string, name: string, at: Date = new Date()): Promise<void> {
    await this.client.patch(
      { apiVersion: 'v1', kind: 'Secret', namespace, name: stateSecretName(name) },
      { metadata: { annotations: { [DELETING_ANNOTATION]: rfc3339(at) } } },
      'merge',
      { fieldManager: FIELD_MANAGER },
    );
  }

  async delete(namespace: string, name: string): Promise<boolean> {
    return this.client.delete({ apiVersion: 'v1', kind: 'Secret', namespace, name: stateSecretName(name) }, 'Background');
  }
}
