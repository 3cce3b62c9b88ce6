// Component steps that fail before touching the cluster: no API server needed.
import { ClusterConnection, ResourceManager } from '@flotilla/kube';
import { reconcileComponent } from './component-reconcile';
import { BundleError, ComponentTimeoutError, InstanceBuildError, RuntimeValuesError, TransientGeneratorError } from './errors';
import { componentRun, type MemoryComponent } from './test-support';
import type { InstanceResult } from './types';

// Never contacted: every case here fails before an API request.
const connection = ClusterConnection.create({ server: 'https://127.0.0.1:9', token: 'unused' });
afterAll(() => connection.close());

function setup(component: MemoryComponent, timeoutMs?: number) {
  const seen: InstanceResult[] = [];
  const run = componentRun(component, { manager: new ResourceManager(connection), timeoutMs, onInstance: async (i) => void seen.push(i) });
  return { run, seen };
}

const instances = { web: { namespace: 'apps', configMaps: { web: { a: '1' } } } };

describe('reconcileComponent before the cluster', () => {
  it('a component past its timeout fails with ComponentTimeoutError, even when the step ignores the signal', async () => {
    const { run } = setup({ name: 'slow', needs: [], wait: false, instances, fail: { step: 'runtime', hang: true } }, 100);
    const res = await reconcileComponent(run);
    expect(res.status).toBe('Failed');
    expect(res.error).toBeInstanceOf(ComponentTimeoutError);
    expect(res.error?.message).toBe('component slow: did not finish within its timeout of 100ms');
  });

  it('reports no instance events after the component was reported timed out', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let unwound!: () => void;
    const stepThrew = new Promise<void>((r) => (unwound = r));
    const { run, seen } = setup({ name: 'late', needs: [], wait: false, instances, fail: { step: 'build', gate, settled: unwound } }, 100);
    const res = await reconcileComponent(run);
    expect(res.error).toBeInstanceOf(ComponentTimeoutError);
    // the build step fails only now, after the component was reported
    release();
    await stepThrew;
    // what follows the throw is promise continuations only: one macrotask later they have all run
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual([]);
  });

  it('the engine default timeout applies when the component sets none', async () => {
    const { run } = setup({ name: 'slow', needs: [], wait: false, instances, fail: { step: 'bundle', hang: true } });
    run.options = { ...run.options, componentTimeoutMs: 80 };
    expect((await reconcileComponent(run)).error).toBeInstanceOf(ComponentTimeoutError);
  });

  it('maps each step to its typed error', async () => {
    const runtime = await reconcileComponent(setup({ name: 'c', needs: [], wait: false, instances, fail: { step: 'runtime', error: new Error('query k8s:v1:Secret:x:y: forbidden') } }).run);
    expect(runtime.error).toBeInstanceOf(RuntimeValuesError);
    expect(runtime.error?.retryable).toBe(true);
    const bundle = await reconcileComponent(setup({ name: 'c', needs: [], wait: false, instances, fail: { step: 'bundle', error: new Error('bundle.cue:3:2: conflicting values') } }).run);
    expect(bundle.error).toBeInstanceOf(BundleError);
    expect(bundle.error?.message).toBe('component c: bundle: bundle.cue:3:2: conflicting values');
    expect(bundle.instanceNames).toBeUndefined();
  });

  it('a build error is reported for its instance; transient generator errors retry', async () => {
    const { run, seen } = setup({ name: 'c', needs: [], wait: false, instances, fail: { step: 'build', error: new Error('values.cue:1: bad') } });
    const res = await reconcileComponent(run);
    expect(res.instanceNames).toEqual([{ name: 'web', namespace: 'apps' }]);
    expect(res.error).toBeInstanceOf(InstanceBuildError);
    expect(res.error).toMatchObject({ reason: 'BuildFailed', retryable: false, instance: 'web' });
    expect(seen.map((i) => [i.name, i.ready, i.error?.reason])).toEqual([['web', false, 'BuildFailed']]);

    const transient = await reconcileComponent(setup({ name: 'c', needs: [], wait: false, instances, fail: { step: 'build', error: new TransientGeneratorError('registry 503') } }).run);
    expect(transient.error).toMatchObject({ reason: 'ModuleFetchFailed', retryable: true });
  });
});
