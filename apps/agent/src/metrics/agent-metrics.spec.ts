import type { ReportInstance } from '@flotilla/engine';
import { AgentMetrics } from './agent-metrics';

function instance(overrides: Partial<ReportInstance> = {}): ReportInstance {
  return {
    name: 'web',
    namespace: 'apps',
    component: 'app',
    action: 'applied',
    module: { name: 'podinfo', repository: 'oci://reg/podinfo', version: '1.0.0', digest: 'sha256:m' },
    ready: true,
    durationMs: 1500,
    counts: { created: 1, configured: 0, unchanged: 0, deleted: 0 } as ReportInstance['counts'],
    objects: ['ConfigMap/apps/web'],
    ...overrides,
  };
}

const project = { name: 'shop', namespace: 'team-a', source: 'oci://reg/shop', revision: 'latest@sha256:aa' };
const infoLines = (text: string) => text.split('\n').filter((l) => l.startsWith('timoni_instance_info{'));

describe('AgentMetrics', () => {
  it('counts CDEvent deliveries, outbox drops and write errors, and the events waiting', async () => {
    const m = new AgentMetrics();
    const o = m.cdeventsObserver();
    o.attempt('delivered');
    o.attempt('retried');
    o.attempt('retried');
    o.dropped(3);
    o.outboxWriteFailed();
    o.pending(7);
    const body = (await m.render()).body;
    expect(body).toContain('flotilla_agent_cdevents_deliveries_total{result="delivered"} 1');
    expect(body).toContain('flotilla_agent_cdevents_deliveries_total{result="retried"} 2');
    expect(body).toContain('flotilla_agent_cdevents_dropped_total 3');
    expect(body).toContain('flotilla_agent_cdevents_outbox_write_errors_total 1');
    expect(body).toContain('flotilla_agent_cdevents_outbox_events 7');
  });

  it('keeps one timoni_instance_info series per instance as its state changes, with the design labels', async () => {
    const m = new AgentMetrics();
    m.recordInstance(project, instance({ ready: false }));
    m.recordInstance({ ...project, revision: 'latest@sha256:bb' }, instance({ module: { name: 'podinfo', repository: 'oci://reg/podinfo', version: '1.1.0', digest: 'sha256:n' } }));
    const lines = infoLines((await m.render()).body);
    expect(lines).toEqual([
      'timoni_instance_info{instance_name="web",instance_namespace="apps",ready="true",module_name="podinfo",module_version="1.1.0",project_name="shop",project_namespace="team-a",project_component="app",project_source="oci://reg/shop",project_revison="latest@sha256:bb"} 1',
    ]);
    expect((await m.render()).body).toMatch(/timoni_instance_reconcile_duration_seconds_count\{[^}]*module_version="1.1.0"[^}]*\} 1/);
  });

  it('forgets a pruned instance and every instance of a deleted Project', async () => {
    const m = new AgentMetrics();
    m.recordInstance(project, instance());
    m.recordInstance(project, instance({ name: 'db' }));
    m.recordInstance({ ...project, name: 'other' }, instance());
    m.forgetInstance(project, { name: 'db', namespace: 'apps', component: 'app' });
    expect(infoLines((await m.render()).body).map((l) => /instance_name="(\w+)".*project_name="(\w+)"/.exec(l)!.slice(1).join('/'))).toEqual(['web/shop', 'web/other']);
    m.forgetProject('team-a', 'shop');
    expect(infoLines((await m.render()).body).map((l) => /project_name="(\w+)"/.exec(l)![1])).toEqual(['other']);
  });

  it('counts API requests, reconciles, queue activity and leadership under controller-runtime names', async () => {
    const m = new AgentMetrics();
    m.kubeRequest('10.0.0.1:443', { method: 'GET', path: '/api', pathTemplate: '/api', statusCode: 200, durationMs: 3 });
    m.kubeRequest('10.0.0.1:443', { method: 'PATCH', path: '/x', pathTemplate: '/x', statusCode: 0, durationMs: 30_000 });
    const o = m.controllerObserver(4);
    o.reconciled('success', 10);
    o.reconciled('error', 10);
    o.queue.added();
    o.queue.depth(3);
    o.activeWorkers(2);
    m.leader('flotilla-agent', true);
    const text = (await m.render()).body;
    for (const line of [
      'rest_client_requests_total{code="200",method="GET",host="10.0.0.1:443"} 1',
      'rest_client_requests_total{code="<error>",method="PATCH",host="10.0.0.1:443"} 1',
      'controller_runtime_reconcile_total{controller="project",result="success"} 1',
      'controller_runtime_reconcile_total{controller="project",result="error"} 1',
      'controller_runtime_reconcile_errors_total{controller="project"} 1',
      'controller_runtime_max_concurrent_reconciles{controller="project"} 4',
      'controller_runtime_active_workers{controller="project"} 2',
      'workqueue_adds_total{name="project"} 1',
      'workqueue_depth{name="project"} 3',
      'leader_election_master_status{name="flotilla-agent"} 1',
    ]) {
      expect(text).toContain(line);
    }
    expect(text).toContain('process_resident_memory_bytes');
  });
});
