// One object per cluster connection that bundles the engine's operations (Flux ssa's ResourceManager).
import type { ClusterConnection, Impersonation } from './connection';
import { DiscoveryCache } from './discovery';
import { defaultHealthRegistry, type HealthRegistry } from './health/health-registry';
import { deleteInstance, defaultInstanceDeleteOptions, type InstanceDeleteOptions } from './instance-delete';
import { KubeError } from './errors';
import { listInventories, type InventoryRef } from './inventory-list';
import { InstanceStorage } from './inventory-storage';
import { ObjectClient } from './object-client';
import type { ObservedObjects } from './object-observations';
import { normalizeNamespaces, stampInstanceLabels, type InstanceIdentity } from './object-normalize';
import { applyAllStaged, defaultApplyOptions, type ApplyOptions } from './resources-apply';
import { deleteObjects } from './resources-delete';
import { diffAll, type DiffEntry } from './resources-diff';
import { checkHealth, defaultWaitOptions, waitForSet, waitForTermination, waitTargets, targetOfRef, type WaitOptions } from './resources-wait';
import { objectReader, type KubeObjectReader } from './runtime-reader';
import type { ChangeSet, KubeObject, ObjectHealth, VersionedObjectRef } from './types';

export class ResourceManager {
  readonly client: ObjectClient;
  readonly storage: InstanceStorage;

  /** `namespacesSeen`: given to a manager that lives one reconcile, which may remember meanwhile which namespaces exist */
  constructor(
    connection: ClusterConnection,
    readonly health: HealthRegistry = defaultHealthRegistry(),
    discovery?: DiscoveryCache,
    private readonly namespacesSeen?: Set<string>,
  ) {
    this.client = new ObjectClient(connection, discovery);
    this.storage = new InstanceStorage(this.client, namespacesSeen);
  }

  /** The same manager acting as another identity (discovery cache shared). */
  impersonate(impersonation: Impersonation): ResourceManager {
    return new ResourceManager(this.client.connection.impersonate(impersonation), this.health, this.client.discovery);
  }

  /** The same manager with every API request aborted by `signal` (one deadline per reconcile): run-scoped. */
  withSignal(signal: AbortSignal): ResourceManager {
    return new ResourceManager(this.client.connection.withSignal(signal), this.health, this.client.discovery, this.namespacesSeen ?? new Set());
  }

  /** The API server's version (`gitVersion` of GET /version, e.g. `v1.31.2`). */
  async serverVersion(): Promise<string> {
    const v = await this.client.connection.request<{ gitVersion?: unknown }>({ method: 'GET', path: '/version' });
    if (typeof v?.gitVersion !== 'string' || !v.gitVersion) throw new KubeError(`${this.client.connection.server}: GET /version gave no gitVersion`);
    return v.gitVersion;
  }

  /**
   * Inventory Secrets matching `labelSelector`, cluster-wide, or over `fallbackNamespaces`
   * one by one when this identity may not list Secrets cluster-wide.
   */
  listInventories(labelSelector: string, fallbackNamespaces: readonly string[] = []): Promise<InventoryRef[]> {
    return listInventories(this.client, labelSelector, fallbackNamespaces);
  }

  /** Stamps instance labels and drops namespaces of cluster-scoped kinds. */
  async prepare(objects: readonly KubeObject[], instance: InstanceIdentity): Promise<KubeObject[]> {
    return normalizeNamespaces(this.client, stampInstanceLabels(objects, instance));
  }

  /** `observed` receives the server's answer for each object, for a wait that follows. */
  applyAllStaged(objects: readonly KubeObject[], options: ApplyOptions = defaultApplyOptions(), observed?: ObservedObjects): Promise<ChangeSet> {
    return applyAllStaged(this.client, objects, options, observed);
  }

  diff(objects: readonly KubeObject[]): Promise<DiffEntry[]> {
    return diffAll(this.client, objects);
  }

  /** Waits for the objects (minus `wait: disabled` ones) to become Current. */
  wait(objects: readonly KubeObject[], options: WaitOptions = { ...defaultWaitOptions(), health: this.health }): Promise<ObjectHealth[]> {
    return waitForSet(this.client, waitTargets(objects), { health: this.health, ...options });
  }

  /** Live status of inventory entries (what `bundle status` prints); an entry `observed` holds is not read again. */
  status(refs: readonly VersionedObjectRef[], observed?: ObservedObjects): Promise<ObjectHealth[]> {
    return checkHealth(this.client, refs.map(targetOfRef), { health: this.health, observed });
  }

  /** Prunes stale inventory entries; with `wait`, waits for them to be gone. */
  async prune(stale: readonly VersionedObjectRef[], instance: InstanceIdentity, wait?: WaitOptions): Promise<ChangeSet> {
    const cs = await deleteObjects(this.client, stale, { instance, propagationPolicy: 'Background' });
    if (wait) await waitForTermination(this.client, cs.entries.filter((e) => e.action === 'deleted').map((e) => targetOfRef(e.ref)), wait);
    return cs;
  }

  deleteInstance(instance: InstanceIdentity, options: InstanceDeleteOptions = defaultInstanceDeleteOptions()): Promise<ChangeSet | undefined> {
    return deleteInstance(this.client, instance, options);
  }

  /** The reader libs/timoni uses for `k8s:` runtime queries. */
  reader(): KubeObjectReader {
    return objectReader(this.client);
  }
}
