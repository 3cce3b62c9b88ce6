import { adminManager, createTenant } from '../../../libs/engine/testdata/harness';
import { eventually } from '../../../libs/kube/testdata/eventually';
import { kubeconfigFile, startAgentProcess, testAgentArgs, type AgentProcess } from '../test/agent-process';
import { agentKubeconfig, installAgent } from '../test/install';
import { applyObject, condition, getProject, projectObject, projectRepository, pushGreeterModule, pushSingle } from '../test/project-fixtures';

// Two agent replicas behind one Lease, as the install Deployment runs them:
// one reconciles; killed without a chance to release the Lease, the other
// takes over once the lease has run out and carries on.

jest.setTimeout(180_000);

interface KubeEvent {
  reason: string;
  reportingInstance?: string;
  involvedObject: { kind: string; name: string };
}

describe('standalone agent: two replicas and leader election', () => {
  const { manager } = adminManager();
  const client = manager.client;
  // the install's Role lets the agent touch this one Lease only
  const leaseName = 'flotilla-agent';
  const agents: Record<string, AgentProcess> = {};
  let ns: string;
  let moduleUrl: string;

  const holder = async () => {
    const lease = await client.getOptional({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'flotilla-system', name: leaseName });
    return (lease?.spec as { holderIdentity?: string; leaseTransitions?: number } | undefined) ?? {};
  };
  const reporters = async (project: string) => {
    const events = (await client.list('v1', 'Event', { namespace: ns })) as unknown as KubeEvent[];
    return new Set(events.filter((e) => e.involvedObject.kind === 'Project' && e.involvedObject.name === project).map((e) => e.reportingInstance));
  };
  async function readyProject(name: string): Promise<void> {
    const repo = projectRepository();
    const digest = await pushSingle(repo, moduleUrl, ns, name);
    await applyObject(client, projectObject(name, ns, repo));
    await eventually(`${name} Ready`, async () => {
      const p = await getProject(client, ns, name);
      return condition(p, 'Ready')?.status === 'True' && p?.status?.lastAppliedRevision === `latest@${digest}`;
    }, 120_000);
  }

  beforeAll(async () => {
    await installAgent(client);
    const kubeconfig = kubeconfigFile(await agentKubeconfig(client));
    [moduleUrl, ns] = await Promise.all([pushGreeterModule(), createTenant(client, 'agent-ha')]);
    for (const identity of ['replica-a', 'replica-b']) {
      agents[identity] = startAgentProcess(
        testAgentArgs({ kubeconfig, identity, namespace: ns }, [
          '--leader-elect',
          '--leader-election-namespace=flotilla-system',
          `--leader-election-id=${leaseName}`,
          '--lease-duration=4s',
          '--renew-deadline=3s',
          '--retry-period=500ms',
          '--poll-interval=500ms',
        ]),
      );
    }
    await Promise.all(Object.values(agents).map((a) => a.url));
  });

  afterAll(async () => {
    await Promise.all(Object.values(agents).map((a) => a.stop()));
    await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns }).catch(() => undefined);
    await client.connection.close();
  });

  it('reconciles with one replica only; a killed leader is replaced and the work goes on', async () => {
    const first = await eventually('a leader', async () => (await holder()).holderIdentity);
    expect(Object.keys(agents)).toContain(first);
    const standby = first === 'replica-a' ? 'replica-b' : 'replica-a';
    await readyProject('one');
    expect(await reporters('one')).toEqual(new Set([first]));
    // both are ready: the standby serves its probes while it waits
    for (const a of Object.values(agents)) expect((await fetch(`${await a.url}/readyz`)).status).toBe(200);
    const leading = await (await fetch(`${await agents[first].url}/metrics`)).text();
    expect(leading).toMatch(new RegExp(`leader_election_master_status\\{name="${leaseName}"\\} 1`));
    const waiting = await (await fetch(`${await agents[standby].url}/metrics`)).text();
    expect(waiting).toMatch(new RegExp(`leader_election_master_status\\{name="${leaseName}"\\} 0`));

    const transitions = (await holder()).leaseTransitions ?? 0;
    await agents[first].kill();
    const taken = await eventually('the standby to take over', async () => {
      const h = await holder();
      return h.holderIdentity === standby ? h : undefined;
    }, 60_000);
    expect(taken.leaseTransitions).toBe(transitions + 1);
    await readyProject('two');
    expect(await reporters('two')).toEqual(new Set([standby]));
    // the Project the old leader applied stays Ready under the new one
    expect(condition(await getProject(client, ns, 'one'), 'Ready')?.status).toBe('True');
  });
});
