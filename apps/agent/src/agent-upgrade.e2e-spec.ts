import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { adminManager, unique } from '../../../libs/engine/testdata/harness';
import { eventually } from '../../../libs/kube/testdata/eventually';
import { UNPULLABLE_IMAGE } from '../../../test/harness/kube-nodes';
import { testDir } from '../../../test/harness/temp-dirs';
import { startTestHub, type TestHub } from '../../hub/test/hub';
import { defaultAgentServerConfig } from '../../hub/src/config/hub-config';
import { EXPECTED_AGENT_VERSION, kubeconfigFile, startAgentProcess, testAgentArgs, type AgentProcess } from '../test/agent-process';
import { AGENT_NAMESPACE, agentKubeconfig, installAgent, removeConnectedInstall } from '../test/install';

// An upgrade from the hub, with the real agent process and the hub's own
// install manifest in the harness API server (kwok plays the kubelet). The
// hub's configured agent image is one that never becomes ready: the agent
// sets it on its own Deployment, Kubernetes starts one new pod, and the old
// agents keep running, as the install's rollout strategy promises.

jest.setTimeout(180_000);

/** What the install ran before the upgrade: an older agent, which kwok runs. */
const OLD_IMAGE = 'ghcr.io/flotilla-dev/flotilla-agent:0.0.9';

interface DeploymentView {
  spec: { template: { spec: { containers: Array<{ name: string; image: string }> } }; strategy: { rollingUpdate: { maxUnavailable: number; maxSurge: number } } };
  metadata: { generation: number };
  status?: { observedGeneration?: number; replicas?: number; updatedReplicas?: number; availableReplicas?: number; readyReplicas?: number };
}

describe('agent upgrade', () => {
  const { manager } = adminManager();
  const client = manager.client;
  const cluster = unique('upgraded');
  let hub: TestHub;
  let agent: AgentProcess | undefined;

  const deployment = async () => (await client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: AGENT_NAMESPACE, name: 'flotilla-agent' })) as unknown as DeploymentView;
  const agentView = async () => (await hub.call('GET', `/api/v1/clusters/${cluster}`)).body.agent;

  beforeAll(async () => {
    hub = await startTestHub('postgres', { agents: { ...defaultAgentServerConfig('127.0.0.1'), port: 0, image: UNPULLABLE_IMAGE } });
  });

  afterAll(async () => {
    await agent?.stop();
    await hub?.close();
    await client.delete({ apiVersion: 'v1', kind: 'Secret', namespace: AGENT_NAMESPACE, name: 'flotilla-agent-identity' }).catch(() => undefined);
    // the API server is shared by the whole run: back to the standalone install (its image too)
    await removeConnectedInstall(client);
    await installAgent(client);
    await client.connection.close();
  });

  it('the manifest runs the hub\'s agent image; an upgrade patches the agent\'s own Deployment to it, and a new agent that never becomes ready leaves the old ones running', async () => {
    expect((await hub.call('POST', '/api/v1/clusters', { body: { name: cluster, mode: 'agent' } })).status).toBe(201);
    const manifest = await hub.call('GET', `/api/v1/clusters/${cluster}/agent/manifest`);
    expect(manifest.status).toBe(200);
    const docs = parseAllDocuments(manifest.text).map((d) => d.toJS() as { kind: string } & DeploymentView);
    const inManifest = docs.find((d) => d.kind === 'Deployment');
    expect(inManifest?.spec.template.spec.containers[0].image).toBe(UNPULLABLE_IMAGE);
    expect(inManifest?.spec.strategy.rollingUpdate).toEqual({ maxUnavailable: 0, maxSurge: 1 });

    // installed earlier, with an older agent image: running, both replicas available
    const dir = testDir('agent-upgrade-');
    const older = manifest.text.replace(`image: ${UNPULLABLE_IMAGE}`, `image: ${OLD_IMAGE}`);
    expect(older).toContain(OLD_IMAGE);
    writeFileSync(join(dir, 'install.yaml'), older);
    await installAgent(client, dir);
    const before = await eventually('the old agents available', async () => {
      const d = await deployment();
      return d.spec.template.spec.containers[0].image === OLD_IMAGE && d.status?.observedGeneration === d.metadata.generation && d.status?.updatedReplicas === 2 && d.status?.availableReplicas === 2 ? d : undefined;
    }, 60_000);

    const secret = await client.get({ apiVersion: 'v1', kind: 'Secret', namespace: AGENT_NAMESPACE, name: 'flotilla-agent-hub' });
    const fromSecret = (k: string) => Buffer.from((secret.data as Record<string, string>)[k], 'base64').toString();
    const operator = (await hub.call('POST', '/api/v1/tokens', { body: { name: 'ops', role: 'operator' } })).body.token;
    const viewer = (await hub.call('POST', '/api/v1/tokens', { body: { name: 'look', role: 'viewer' } })).body.token;
    // not connected yet: nothing to send it over
    const early = await hub.call('POST', `/api/v1/clusters/${cluster}/agent/upgrade`, { token: operator });
    expect(early.status).toBe(409);
    expect(early.body.message).toContain('not connected');

    // the agent as a process, with the install's service account and the Deployment it would run in
    agent = startAgentProcess(
      testAgentArgs({ kubeconfig: kubeconfigFile(await agentKubeconfig(client)), identity: 'agent-upgrade', namespace: AGENT_NAMESPACE }, [
        `--hub-address=${fromSecret('hubAddress')}`,
        `--hub-identity-secret=${AGENT_NAMESPACE}/flotilla-agent-identity`,
        `--self-deployment=${AGENT_NAMESPACE}/flotilla-agent`,
        '--hub-heartbeat=500ms',
        '--hub-reconnect-max=1s',
      ]),
      { FLOTILLA_HUB_BOOTSTRAP_TOKEN: fromSecret('bootstrapToken'), FLOTILLA_HUB_CA: fromSecret('hubCa') },
    );
    const view = await eventually('the agent connected', async () => {
      const v = await agentView();
      return v?.connected ? v : undefined;
    }, 60_000);
    // the test hub and agent are one release: within the skew policy
    expect(view).toMatchObject({ version: EXPECTED_AGENT_VERSION, supported: true, skew: expect.stringContaining('within') });

    // a viewer may not; a body naming an image is refused and changes nothing
    expect((await hub.call('POST', `/api/v1/clusters/${cluster}/agent/upgrade`, { token: viewer })).status).toBe(403);
    const chosen = await hub.call('POST', `/api/v1/clusters/${cluster}/agent/upgrade`, { token: operator, body: { image: 'attacker.example/agent:1' } });
    expect(chosen.status).toBe(400);
    expect(chosen.body.message).toContain('image: not accepted');
    expect((await hub.call('POST', `/api/v1/clusters/${cluster}/agent/upgrade`, { token: operator, body: { tag: '9.9.9' } })).status).toBe(400);
    expect((await deployment()).spec.template.spec.containers[0].image).toBe(OLD_IMAGE);

    const upgrade = await hub.call('POST', `/api/v1/clusters/${cluster}/agent/upgrade`, { token: operator });
    expect(upgrade.status).toBe(202);
    expect(upgrade.body).toMatchObject({ cluster, image: UNPULLABLE_IMAGE, fromVersion: EXPECTED_AGENT_VERSION });

    // the agent patched its own Deployment (with its own service account) and said so to the hub
    await eventually('the image set on the Deployment', async () => ((await deployment()).spec.template.spec.containers[0].image === UNPULLABLE_IMAGE ? true : undefined), 30_000);
    await eventually('the agent\'s answer in the hub\'s log', async () => (hub.logs.some((l) => l.includes('the agent set the image on its Deployment') && l.includes(UNPULLABLE_IMAGE)) ? true : undefined), 30_000);
    // one new pod, never ready; the two old ones stay available
    const rolling = await eventually('the rollout stuck on the new pod', async () => {
      const d = await deployment();
      return d.status?.observedGeneration === d.metadata.generation && d.status?.updatedReplicas === 1 && d.status?.replicas === 3 ? d : undefined;
    }, 60_000);
    expect(rolling.metadata.generation).toBeGreaterThan(before.metadata.generation);
    expect(rolling.status?.availableReplicas).toBe(2);
    // and the agent that got it is still connected
    expect((await agentView()).connected).toBe(true);
  });

  it('409 for a push cluster (as the other agent routes: it exists, with no agent) and once the agent is gone; 404 for no cluster', async () => {
    const push = unique('push');
    expect((await hub.call('POST', '/api/v1/clusters', { body: { name: push, mode: 'push', endpoint: { server: 'https://127.0.0.1:1' }, credentials: { token: 't' } } })).status).toBe(201);
    const pushed = await hub.call('POST', `/api/v1/clusters/${push}/agent/upgrade`);
    expect(pushed.status).toBe(409);
    expect(pushed.body.message).toBe(`cluster "${push}" is a push cluster: it has no agent to upgrade`);
    expect((await hub.call('POST', '/api/v1/clusters/nowhere/agent/upgrade')).status).toBe(404);
    await agent?.stop();
    agent = undefined;
    await eventually('the agent disconnected', async () => ((await agentView()).connected === false ? true : undefined), 60_000);
    const gone = await hub.call('POST', `/api/v1/clusters/${cluster}/agent/upgrade`);
    expect(gone.status).toBe(409);
    expect(gone.body.message).toContain('not connected');
  });
});
