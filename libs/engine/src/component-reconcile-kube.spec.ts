// Component steps against the harness API server: what an apply refused part way
// leaves in the instance result, and instances another Project owns.
import { DryRunError, InstanceOwnershipError, StagedApplyError, type KubeObject } from '@flotilla/kube';
import { adminManager, createTenant, unique } from '../testdata/harness';
import { reconcileComponent, type ComponentRun } from './component-reconcile';
import { InstanceApplyError, ProjectOwnershipConflictError } from './errors';
import { componentRun, type MemoryComponent } from './test-support';

const { connection, manager } = adminManager();
afterAll(() => connection.close());

function run(component: MemoryComponent, project: string, namespace: string): ComponentRun {
  return componentRun(component, { manager, project: { name: project, namespace, serviceAccountName: 'deployer' } });
}

describe('reconcileComponent (real API server)', () => {
  it('an apply refused in a later stage keeps what the earlier stage applied in changes and counts', async () => {
    const ns = await createTenant(manager.client, 'comp-partial');
    const role = unique('flotilla-test:comp');
    const objects: KubeObject[] = [
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: role }, rules: [] },
      // refused by the API server's validation: not a DNS subdomain
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Not_Valid', namespace: ns }, data: {} },
    ];
    const res = await reconcileComponent(run({ name: 'c', needs: [], wait: false, instances: { app: { namespace: ns, configMaps: { fine: { a: '1' } }, objects } } }, 'partial', ns));
    expect(res.status).toBe('Failed');
    const [app] = res.instances;
    expect(app.error).toBeInstanceOf(InstanceApplyError);
    expect(app.error?.cause).toBeInstanceOf(StagedApplyError);
    expect((app.error?.cause as Error).cause).toBeInstanceOf(DryRunError);
    expect(app.error?.message).toContain(`ConfigMap/${ns}/Not_Valid dry-run failed`);
    expect(app.changes.map((c) => `${c.subject}:${c.action}`)).toEqual([`ClusterRole/${role}:created`]);
    expect(app.counts.created).toBe(1);
  });

  it('an instance another Project owns stalls the component with OwnershipConflict', async () => {
    const ns = await createTenant(manager.client, 'comp-owner');
    const component = (cm: string): MemoryComponent => ({ name: 'c', needs: [], wait: false, instances: { shared: { namespace: ns, configMaps: { [cm]: { v: '1' } } } } });
    expect((await reconcileComponent(run(component('s1'), 'first', ns))).status).toBe('Succeeded');
    // the same Project may apply it again, from another bundle too
    expect((await reconcileComponent(run({ ...component('s1'), bundle: 'moved' }, 'first', ns))).status).toBe('Succeeded');

    const res = await reconcileComponent(run(component('s2'), 'second', ns));
    expect(res.status).toBe('Failed');
    expect(res.error).toBeInstanceOf(ProjectOwnershipConflictError);
    expect(res.error).toMatchObject({ step: 'apply', reason: 'OwnershipConflict', retryable: false, component: 'c', instance: 'shared' });
    expect(res.error?.message).toBe(`component c, instance shared: instance ${ns}/shared belongs to Project ${ns}/first; remove it from there first, or set overwriteOwnership: true on this Project to take it over`);
    expect(res.error?.cause).toBeInstanceOf(InstanceOwnershipError);
    expect(await manager.client.getOptional({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 's2' })).toBeUndefined();

    // the Project's overwriteOwnership takes it over, and the instance is then the second Project's
    const takeover = componentRun(component('s2'), { manager, project: { name: 'second', namespace: ns, serviceAccountName: 'deployer', overwriteOwnership: true } });
    expect((await reconcileComponent(takeover)).status).toBe('Succeeded');
    expect(await manager.client.getOptional({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 's2' })).toBeDefined();
    expect((await reconcileComponent(run(component('s1'), 'first', ns))).error).toBeInstanceOf(ProjectOwnershipConflictError);
  });
});
