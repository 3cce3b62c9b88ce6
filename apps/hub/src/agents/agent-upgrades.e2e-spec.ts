import { startTestHub, type TestHub } from '../../test/hub';
import { eventually } from '../../test/scheduler-fixtures';
import { SimulatedAgent } from '../../test/simulated-agent';
import { HUB_VERSION } from '../common/hub-version';
import { defaultAgentServerConfig } from '../config/hub-config';
import { AgentCa } from './agent-ca.service';
import { AgentGrpcServer } from './agent-grpc.server';

// FLOTILLA_AGENT_AUTO_UPGRADE: an agent of another release that connects is
// warned about in the log, shown outside the skew policy, and sent the hub's
// configured image; what it answers is logged. (The real agent patching its
// Deployment: apps/agent/src/agent-upgrade.e2e-spec.ts.)

const IMAGE = 'registry.example/flotilla/agent:9.9.9';

describe('agent upgrades at connect', () => {
  let hub: TestHub;
  let agent: SimulatedAgent | undefined;

  beforeAll(async () => {
    hub = await startTestHub('pglite', { agents: { ...defaultAgentServerConfig('127.0.0.1'), port: 0, image: IMAGE, autoUpgrade: true } });
  });

  afterAll(async () => {
    agent?.close();
    await hub?.close();
  });

  it('sends an agent of another release the hub\'s image, warns of one outside the skew policy, and logs its answer', async () => {
    const token = (await hub.call('POST', '/api/v1/clusters', { body: { name: 'old-edge', mode: 'agent' } })).body.agent.bootstrapToken;
    agent = new SimulatedAgent(`127.0.0.1:${hub.app.get(AgentGrpcServer).port}`, hub.app.get(AgentCa).certPem);
    agent.agentVersion = '99.0.0';
    await agent.register(token);
    agent.connect();
    const sent = await agent.until(() => agent!.received.find((m) => m.body?.$case === 'upgrade'));
    expect(sent.body).toEqual({ $case: 'upgrade', value: { image: IMAGE } });

    const view = (await hub.call('GET', '/api/v1/clusters/old-edge')).body.agent;
    expect(view).toMatchObject({ connected: true, version: '99.0.0', supported: false, skew: expect.stringContaining(`agent 99.0.0 is newer than this hub (${HUB_VERSION}) supports`) });
    expect(hub.logs.some((l) => l.includes('agent version outside the hub\'s skew policy') && l.includes('old-edge'))).toBe(true);

    // the agent's answer: here, that it could not
    agent.send({ body: { $case: 'upgradeResult', value: { image: IMAGE, error: 'Deployment/flotilla-system/flotilla-agent: forbidden' } } });
    await eventually('the answer logged', async () => (hub.logs.some((l) => l.includes('the agent could not upgrade itself') && l.includes('forbidden')) ? true : undefined));
  });
});
