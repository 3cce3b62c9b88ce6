import { randomUUID } from 'node:crypto';
import { signBody, toHttpMessage, type CDEvent } from '@flotilla/cdevents';
import { adminManager, createTenant } from '../../../libs/engine/testdata/harness';
import { eventually } from '../../../libs/kube/testdata/eventually';
import { kubeconfigFile, startAgentProcess, testAgentArgs, type AgentProcess } from '../test/agent-process';
import { agentKubeconfig, installAgent } from '../test/install';
import { applyObject, getProject, projectObject, projectRepository, pushGreeter, pushGreeterModule, pushSingle } from '../test/project-fixtures';
import { SinkProcess } from '../../../test/e2e/support/cdevents-sink';
import { schemaErrors } from '../../../libs/cdevents/src/test-support';

// The standalone agent runs the hub's CDEvents receiver: with a poll interval
// of an hour, only the `artifact published` event can make it see the new digest.

jest.setTimeout(180_000);

const SECRET = 'agent-receiver-secret-0123456789';

async function post(url: string, repository: string, id: string, secret = SECRET): Promise<number> {
  const repo = repository.replace(/^oci:\/\//, '');
  const event: CDEvent = {
    context: { specversion: '0.4.1', id, source: '/ci/greet', type: 'dev.cdevents.artifact.published.0.2.0', timestamp: new Date().toISOString() },
    subject: { id: `pkg:oci/${repo.split('/').at(-1)}?repository_url=${encodeURIComponent(repo)}`, type: 'artifact', content: {} },
  };
  const { headers, body } = toHttpMessage(event, 'structured');
  const res = await fetch(url, { method: 'POST', body, headers: { ...headers, 'x-flotilla-signature': signBody(secret, body) } });
  return res.status;
}

describe('standalone agent: CDEvents receiver', () => {
  const { manager } = adminManager();
  const client = manager.client;
  let agent: AgentProcess;
  let ns: string;
  let moduleUrl: string;

  beforeAll(async () => {
    await installAgent(client);
    const kubeconfig = await agentKubeconfig(client);
    [moduleUrl, ns] = await Promise.all([pushGreeterModule(), createTenant(client, 'agent-cde')]);
    agent = startAgentProcess(testAgentArgs({ kubeconfig: kubeconfigFile(kubeconfig), identity: 'agent-cde', namespace: ns }, ['--poll-interval=1h', '--events-address=127.0.0.1:0', '--cluster-name=spoke-a', '--retry-initial=500ms', '--retry-max=2s']), { FLOTILLA_EVENTS_SECRETS: SECRET });
    await agent.url;
  });

  afterAll(async () => {
    await agent?.stop();
    await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns }).catch(() => undefined);
    await client.connection.close();
  });

  it('resolves the tag of the Project an artifact published names, once per event id', async () => {
    const receiver = await eventually('the receiver to start', async () => agent.logs().find((l) => l.msg === 'CDEvents receiver started')?.url as string | undefined, 30_000);
    const repo = projectRepository();
    const first = await pushSingle(repo, moduleUrl, ns, 'greet', 'latest', 'hello');
    await applyObject(client, projectObject('greet', ns, repo));
    await eventually('the first digest applied', async () => (await getProject(client, ns, 'greet'))?.status?.lastAppliedRevision === `latest@${first}`, 120_000);

    const second = await pushSingle(repo, moduleUrl, ns, 'greet', 'latest', 'hello again');
    expect(await post(receiver, repo, 'ev-1', 'a-wrong-secret-0123456789')).toBe(401);
    expect(await post(receiver, 'oci://127.0.0.1:1/nobody/else', 'ev-2')).toBe(422);
    const id = randomUUID();
    expect(await post(receiver, repo, id)).toBe(202);
    await eventually('the new digest applied', async () => (await getProject(client, ns, 'greet'))?.status?.lastAppliedRevision === `latest@${second}`, 60_000);
    expect(await post(receiver, repo, id)).toBe(200);
  });

  it('sends the CDEvents of a Project that names a sink: creation, services, an incident and its end, deletion', async () => {
    const receiver = await eventually('the receiver to start', async () => agent.logs().find((l) => l.msg === 'CDEvents receiver started')?.url as string | undefined, 30_000);
    const sink = await SinkProcess.create();
    await sink.start();
    try {
      const repo = projectRepository();
      const applied = async (digest: string) => {
        try {
          await eventually(`latest@${digest} applied`, async () => (await getProject(client, ns, 'told'))?.status?.lastAppliedRevision === `latest@${digest}`, 120_000);
        } catch (err) {
          throw new Error(`${(err as Error).message}; the Project: ${JSON.stringify(await getProject(client, ns, 'told'))}\n${agent.output().slice(-3000)}`, { cause: err });
        }
      };
      const v1 = await pushGreeter(repo, moduleUrl, ns, { cache: true, shout: false });
      const told = projectObject('told', ns, repo);
      await applyObject(client, { ...told, spec: { ...(told.spec as object), cdevents: { sink: sink.url } } });
      await applied(v1);

      const broken = await pushGreeter(repo, moduleUrl, ns, { cache: true, shout: false, broken: true });
      expect(await post(receiver, repo, randomUUID())).toBe(202);
      await eventually('the broken revision tried', async () => (await getProject(client, ns, 'told'))?.status?.lastAttemptedRevision === `latest@${broken}` && ((await getProject(client, ns, 'told'))?.status?.failures ?? 0) >= 1, 60_000);

      const fixed = await pushGreeter(repo, moduleUrl, ns, { cache: false, shout: false });
      expect(await post(receiver, repo, randomUUID())).toBe(202);
      await applied(fixed);
      await client.delete({ apiVersion: 'projects.timoni.sh/v1alpha1', kind: 'Project', namespace: ns, name: 'told' });

      const kinds = () => sink.events().map((e) => e.event.context.type.replace(/^dev\.cdevents\.|\.0\.3\.0$/g, '') + (e.event.customData.flotilla.instance ? ` ${(e.event.customData.flotilla.instance as { name: string }).name}` : ''));
      const got = await eventually('environment.deleted at the sink', async () => (kinds().includes('environment.deleted') ? kinds() : undefined), 60_000);
      expect(got[0]).toBe('environment.created');
      expect(got.slice(1, 4).sort()).toEqual(['service.deployed cache', 'service.deployed db', 'service.deployed web']);
      const detected = got.indexOf('incident.detected');
      const resolved = got.indexOf('incident.resolved');
      expect(detected).toBeGreaterThan(3);
      expect(resolved).toBeGreaterThan(detected);
      expect(got.filter((k) => k === 'incident.detected')).toHaveLength(1);
      expect(got.slice(detected, resolved)).toContain('service.removed cache');
      expect(got.at(-1)).toBe('environment.deleted');
      expect(got.slice(resolved + 1, -1).sort()).toEqual(['service.removed db', 'service.removed web']);
      for (const { event, headers } of sink.events()) {
        expect([event.context.type, schemaErrors(event)]).toEqual([event.context.type, []]);
        expect(headers['ce-source']).toBe('/flotilla/agent/spoke-a');
      }
    } finally {
      await sink.stop();
    }
  });
});
