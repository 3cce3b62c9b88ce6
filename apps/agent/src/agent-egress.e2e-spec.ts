import { adminManager, createTenant } from '../../../libs/engine/testdata/harness';
import { eventually } from '../../../libs/kube/testdata/eventually';
import { harnessEnv } from '../../../test/harness/env';
import { kubeconfigFile, startAgentProcess, testAgentArgs, type AgentProcess } from '../test/agent-process';
import { agentKubeconfig, installAgent } from '../test/install';
import { applyObject, condition, getProject, projectObject } from '../test/project-fixtures';

// The compiled agent as a process: the registries its Projects name go through its
// egress policy (its own API server does not), so a Project cannot point the agent
// at the cloud metadata service, and --egress-deny holds even for loopback.

jest.setTimeout(180_000);

describe('agent egress policy', () => {
  const { manager } = adminManager();
  const client = manager.client;
  let agent: AgentProcess;
  let ns: string;

  beforeAll(async () => {
    await installAgent(client);
    const kubeconfig = kubeconfigFile(await agentKubeconfig(client));
    ns = await createTenant(client, 'agent-egress');
    agent = startAgentProcess(
      testAgentArgs({ kubeconfig, identity: 'agent-egress', namespace: ns }, ['--poll-interval=300ms', '--retry-initial=500ms', '--retry-max=2s', '--egress-deny=127.0.0.2/32,denied.localhost']),
    );
    await agent.url;
  });

  afterAll(async () => {
    await agent?.stop();
    await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns }).catch(() => undefined);
    await client.connection.close();
  });

  async function notReady(name: string): Promise<string> {
    const ready = await eventually(`${name} not Ready`, async () => {
      const c = condition(await getProject(client, ns, name), 'Ready');
      return c?.status === 'False' && c.message ? c : undefined;
    }, 60_000);
    return ready.message;
  }

  it('refuses a registry at the metadata address, before connecting, and says why', async () => {
    await applyObject(client, projectObject('imds', ns, 'oci://169.254.169.254/latest/app'));
    expect(await notReady('imds')).toContain('refused by the egress policy: 169.254.169.254 is a cloud metadata address');
  });

  it('refuses what --egress-deny names, by address and by name', async () => {
    const port = harnessEnv().registry.host.split(':')[1];
    await applyObject(client, projectObject('denied-address', ns, `oci://127.0.0.2:${port}/app`));
    expect(await notReady('denied-address')).toContain('127.0.0.2 is on the egress deny list');
    await applyObject(client, projectObject('denied-name', ns, `oci://denied.localhost:${port}/app`));
    expect(await notReady('denied-name')).toContain('denied.localhost is on the egress deny list');
  });
});
