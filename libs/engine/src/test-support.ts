// Shared by the specs (not exported from index.ts): an in-memory manifest
// generator whose steps can be made to fail or hang, per component.
import type { KubeObject, ResourceManager } from '@flotilla/kube';
import { RegistryClient } from '@flotilla/oci';
import type { ComponentRun } from './component-reconcile';
import { defaultReconcileOptions } from './options';
import type { BuiltInstance, BundlePlan, ComponentRequest, ManifestGenerator, PlannedComponent, ProjectPlan, SourceFiles } from './types';

export interface MemoryComponent extends PlannedComponent {
  bundle?: string;
  /** instance name → ConfigMaps it renders (name → data), plus any other objects */
  instances: Record<string, { namespace: string; configMaps: Record<string, Record<string, string>>; objects?: KubeObject[] }>;
  /** make a step fail or hang */
  fail?: {
    step: 'runtime' | 'bundle' | 'build';
    error?: Error;
    hang?: boolean;
    afterMs?: number;
    /** fail only once this settles; `settled` is called right after the step threw */
    gate?: Promise<void>;
    settled?: () => void;
  };
  /** pause in the runtime step (parallelism and timeouts) */
  delayMs?: number;
}

export function configMap(namespace: string, name: string, data: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data };
}

export class MemoryGenerator implements ManifestGenerator {
  /** component names in the order their runtime step started */
  readonly started: string[] = [];
  running = 0;
  peak = 0;

  constructor(readonly components: MemoryComponent[], readonly name = 'memory') {}

  async loadProject(_files: SourceFiles, path: string): Promise<ProjectPlan> {
    if (path !== 'project.cue') throw new Error(`${path} not found`);
    return { name: this.name, components: this.components.map(({ name, needs, wait, timeoutMs }) => ({ name, needs, wait, timeoutMs })) };
  }

  private spec(req: ComponentRequest): MemoryComponent {
    return this.components.find((c) => c.name === req.component.name)!;
  }

  private async step(req: ComponentRequest, step: 'runtime' | 'bundle' | 'build'): Promise<void> {
    const f = this.spec(req).fail;
    if (f?.step !== step) return;
    if (f.hang) await new Promise(() => undefined);
    if (f.afterMs) await new Promise((r) => setTimeout(r, f.afterMs));
    if (f.gate) {
      await f.gate;
      queueMicrotask(() => f.settled?.());
    }
    throw f.error ?? new Error(`${step} failed`);
  }

  async runtimeValues(req: ComponentRequest): Promise<Record<string, string>> {
    this.started.push(req.component.name);
    this.running++;
    this.peak = Math.max(this.peak, this.running);
    try {
      const delay = this.spec(req).delayMs;
      if (delay) await new Promise((r) => setTimeout(r, delay));
      await this.step(req, 'runtime');
      return { TIMONI_CLUSTER_NAME: req.target.cluster.name, TIMONI_CLUSTER_GROUP: req.target.cluster.group };
    } finally {
      this.running--;
    }
  }

  async bundle(req: ComponentRequest, values: Record<string, string>): Promise<BundlePlan> {
    await this.step(req, 'bundle');
    const spec = this.spec(req);
    return { name: spec.bundle ?? spec.name, instances: Object.entries(spec.instances).map(([name, i]) => ({ name, namespace: i.namespace })), data: values };
  }

  async buildInstance(req: ComponentRequest, bundle: BundlePlan, instance: string): Promise<BuiltInstance> {
    await this.step(req, 'build');
    const spec = this.spec(req).instances[instance];
    const values = bundle.data as Record<string, string>;
    return {
      name: instance,
      namespace: spec.namespace,
      module: { name: 'flotilla.test/memory', repository: 'oci://127.0.0.1/memory', version: '1.0.0', digest: 'sha256:0' },
      values: `values: cluster: "${values.TIMONI_CLUSTER_NAME}"\n`,
      images: [],
      steps: [
        {
          name: 'main',
          objects: [...Object.entries(spec.configMaps).map(([n, data]) => configMap(spec.namespace, n, { ...data, cluster: values.TIMONI_CLUSTER_NAME })), ...(spec.objects ?? [])],
        },
      ],
    };
  }
}

/** A ComponentRun of one in-memory component, as the specs of reconcileComponent use it. */
export function componentRun(
  component: MemoryComponent,
  options: { manager: ResourceManager; project?: { name: string; namespace: string; serviceAccountName: string; overwriteOwnership?: boolean }; timeoutMs?: number; onInstance?: ComponentRun['onInstance'] },
): ComponentRun {
  const project = options.project ?? { name: 'p', namespace: 'ns', serviceAccountName: 'sa' };
  const plan = { name: project.name, components: [{ name: component.name, needs: [], wait: false, timeoutMs: options.timeoutMs }] };
  return {
    generator: new MemoryGenerator([component]),
    manager: options.manager,
    project: { ...project, source: { repository: 'oci://127.0.0.1/p', tag: 'latest', path: 'project.cue' }, annotations: {} },
    request: {
      files: {},
      project: plan,
      component: plan.components[0],
      target: { cluster: { name: 'c1', group: 'g' }, annotations: {}, reader: { get: async () => null }, kubeVersion: '1.36.0' },
      registry: new RegistryClient(),
    },
    options: defaultReconcileOptions(),
    onInstance: options.onInstance ?? (async () => undefined),
  };
}
