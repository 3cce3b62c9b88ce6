import { harnessEnv } from '../../../test/harness/env';
import { adminManager, createTenant } from '../../../libs/engine/testdata/harness';
import { eventually } from '../../../libs/kube/testdata/eventually';
import { kubeconfigFile, startAgentProcess, testAgentArgs, type AgentProcess } from '../test/agent-process';
import { agentKubeconfig, installAgent } from '../test/install';
import { applyObject, condition, getProject, projectObject, projectRepository, pushGreeterModule, pushSingle } from '../test/project-fixtures';
import { startTcpProxy, type TcpProxy } from '../test/tcp-proxy';

// The agent reaches the API server through a proxy that the test cuts: every
// connection, the watch included, dies, and new ones are refused while a
// Project is created and another changed. Once the way is open again the
// agent must resume and see both.

jest.setTimeout(180_000);

describe('standalone agent: a broken watch', () => {
  const { manager } = adminManager();
  const client = manager.client;
  let agent: AgentProcess;
  let proxy: TcpProxy;
  let ns: string;
  let moduleUrl: string;

  beforeAll(async () => {
    await installAgent(client);
    const api = new URL(harnessEnv().kube.server);
    proxy = await startTcpProxy({ host: api.hostname, port: Number(api.port) });
    const kubeconfig = (await agentKubeconfig(client)).replace(harnessEnv().kube.server, proxy.server);
    [moduleUrl, ns] = await Promise.all([pushGreeterModule(), createTenant(client, 'agent-watch')]);
    agent = startAgentProcess(testAgentArgs({ kubeconfig: kubeconfigFile(kubeconfig), identity: 'agent-watch', namespace: ns }, ['--poll-interval=500ms', '--log-level=debug']));
    await agent.url;
  });

  afterAll(async () => {
    await agent?.stop();
    await proxy?.close();
    await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns }).catch(() => undefined);
    await client.connection.close();
  });

  it('resumes after the connection is cut and misses no change made meanwhile', async () => {
    const repo = projectRepository();
    const digest = await pushSingle(repo, moduleUrl, ns, 'before');
    await applyObject(client, projectObject('before', ns, repo));
    await eventually('before Ready', async () => (await getProject(client, ns, 'before'))?.status?.lastAppliedRevision === `latest@${digest}`, 120_000);

    proxy.cut();
    // made while the agent cannot see anything
    const laterRepo = projectRepository();
    const laterDigest = await pushSingle(laterRepo, moduleUrl, ns, 'later');
    await applyObject(client, projectObject('later', ns, laterRepo));
    await client.patch({ apiVersion: 'projects.timoni.sh/v1alpha1', kind: 'Project', namespace: ns, name: 'before' }, { metadata: { annotations: { 'reconcile.timoni.sh/requestedAt': 'during-outage' } } }, 'merge');
    await eventually('the agent to notice the broken watch', async () => /project watch interrupted/.test(agent.output()));
    proxy.restore();

    const later = await eventually('later Ready', async () => {
      const p = await getProject(client, ns, 'later');
      return condition(p, 'Ready')?.status === 'True' && p?.status?.lastAppliedRevision === `latest@${laterDigest}` ? p : undefined;
    }, 120_000);
    expect(later.status!.observedGeneration).toBe(1);
    await eventually('the request made during the outage handled', async () => (await getProject(client, ns, 'before'))?.status?.lastHandledReconcileAt === 'during-outage', 60_000);
  });
});
