import { randomUUID } from 'node:crypto';
import { signBody, toHttpMessage, type CDEvent } from '@flotilla/cdevents';
import { parseReference } from '@flotilla/oci';
import { adminManager, createTenant } from '../../../libs/engine/testdata/harness';
import { eventually } from '../../../libs/kube/testdata/eventually';
import { kubeconfigFile, startAgentProcess, testAgentArgs, type AgentProcess } from '../test/agent-process';
import { agentKubeconfig, AGENT_NAMESPACE, grantSecretRead, installAgent } from '../test/install';
import { applyObject, getProject, projectObject, projectRepository, pushGreeterModule, pushSingle, registry } from '../test/project-fixtures';
import { SinkProcess } from '../../../test/e2e/support/cdevents-sink';
import { schemaErrors } from '../../../libs/cdevents/src/test-support';
import { OUTBOX_LABEL, OUTBOX_PROJECT_ANNOTATION, type OutboxEntry } from './events/cdevents-outbox-store';

// The agent's undelivered CDEvents live in a ConfigMap per Project: with the
// sink down, the agent SIGKILLed and started again, every event still
// arrives once the sink is back, with the id it was given; the header the
// Project names comes from its Secret; going back to an earlier revision is
// a rollback, and a change of the Project's spec an environment.modified.

jest.setTimeout(300_000);

const SECRET = 'agent-receiver-secret-0123456789';
const TOKEN = 'Bearer sink-token-0123';

async function announce(url: string, repository: string): Promise<number> {
  const repo = repository.replace(/^oci:\/\//, '');
  const event: CDEvent = {
    context: { specversion: '0.5.0', id: randomUUID(), source: '/ci/greet', type: 'dev.cdevents.artifact.published.0.2.0', timestamp: new Date().toISOString() },
    subject: { id: `pkg:oci/${repo.split('/').at(-1)}?repository_url=${encodeURIComponent(repo)}`, type: 'artifact', content: {} },
  };
  const { headers, body } = toHttpMessage(event, 'structured');
  const res = await fetch(url, { method: 'POST', body, headers: { ...headers, 'x-flotilla-signature': signBody(SECRET, body) } });
  return res.status;
}

describe('standalone agent: CDEvents outbox in the cluster', () => {
  const { manager } = adminManager();
  const client = manager.client;
  let agent: AgentProcess | undefined;
  let ns: string;
  let moduleUrl: string;
  let kubeconfig: string;

  const start = async () => {
    agent = startAgentProcess(
      testAgentArgs({ kubeconfig, identity: 'agent-outbox', namespace: ns }, ['--poll-interval=1h', '--events-address=127.0.0.1:0', '--cluster-name=spoke-o', '--retry-initial=500ms', '--retry-max=2s', `--cdevents-outbox-namespace=${AGENT_NAMESPACE}`, '--cdevents-retry-initial=200ms', '--cdevents-retry-max=1s', '--cdevents-max-attempts=1000']),
      { FLOTILLA_EVENTS_SECRETS: SECRET },
    );
    await agent.url;
    return eventually('the receiver to start', async () => agent!.logs().find((l) => l.msg === 'CDEvents receiver started')?.url as string | undefined, 30_000);
  };

  /** The entries of the Project's outbox ConfigMap ([] when it has none). */
  const stored = async (project: string): Promise<OutboxEntry[]> => {
    const maps = await client.list('v1', 'ConfigMap', { namespace: AGENT_NAMESPACE, labelSelector: `${OUTBOX_LABEL}=true` });
    const mine = maps.find((m) => m.metadata.annotations?.[OUTBOX_PROJECT_ANNOTATION] === project) as { data?: { events?: string } } | undefined;
    return mine?.data?.events ? (JSON.parse(mine.data.events) as OutboxEntry[]) : [];
  };

  beforeAll(async () => {
    await installAgent(client);
    kubeconfig = kubeconfigFile(await agentKubeconfig(client));
    [moduleUrl, ns] = await Promise.all([pushGreeterModule(), createTenant(client, 'agent-obx')]);
    // the sink header's Secret: the namespace lets the agent read its Secrets
    await grantSecretRead(client, ns);
  });

  afterAll(async () => {
    await agent?.stop();
    await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns }).catch(() => undefined);
    await client.connection.close();
  });

  it('delivers every event after a crash while the sink is down, in order, with its id and the Secret header; tells a rollback and a spec change', async () => {
    let receiver = await start();
    const sink = await SinkProcess.create();
    await sink.start();
    const key = `${ns}/kept`;
    try {
      await applyObject(client, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sink-token', namespace: ns }, stringData: { value: TOKEN } });
      const repo = projectRepository();
      const applied = (digest: string) => eventually(`latest@${digest} applied`, async () => (await getProject(client, ns, 'kept'))?.status?.lastAppliedRevision === `latest@${digest}`, 120_000);
      const v1 = await pushSingle(repo, moduleUrl, ns, 'greet', 'latest', 'one');
      const base = projectObject('kept', ns, repo);
      const cdevents = { sink: sink.url, header: { name: 'Authorization', secretKeyRef: { name: 'sink-token', key: 'value' } } };
      await applyObject(client, { ...base, spec: { ...(base.spec as object), cdevents } });
      await applied(v1);
      await eventually('the first events at the sink', async () => sink.events().length === 2, 60_000);
      await eventually('the outbox emptied', async () => (await stored(key)).length === 0, 30_000);

      // the sink goes down; an upgrade's events wait in the outbox; the agent crashes
      await sink.stop();
      const v2 = await pushSingle(repo, moduleUrl, ns, 'greet', 'latest', 'two');
      expect(await announce(receiver, repo)).toBe(202);
      await applied(v2);
      await eventually('a failed delivery attempt', async () => agent!.logs().some((l) => l.msg === 'CDEvent delivery failed; retrying with backoff'), 30_000);
      const beforeCrash = (await stored(key)).map((e) => e.event.context.id);
      expect(beforeCrash).toHaveLength(1);
      await agent!.kill();

      // a new process finds the outbox; a rollback and a spec change join it while the sink is still down
      receiver = await start();
      await eventually('the stored outbox loaded', async () => agent!.logs().some((l) => l.msg === 'CDEvents outboxes loaded'), 30_000);
      await registry.tag(parseReference(repo), v1, 'latest');
      expect(await announce(receiver, repo)).toBe(202);
      await applied(v1);
      await client.patch({ apiVersion: 'projects.timoni.sh/v1alpha1', kind: 'Project', namespace: ns, name: 'kept' }, { spec: { cdevents: { ...cdevents, sink: `${sink.url}?changed=1` } } }, 'merge');
      await eventually('the spec change reconciled', async () => {
        const p = await getProject(client, ns, 'kept');
        return p?.status?.observedGeneration === p?.metadata.generation && (await stored(key)).length === 3;
      }, 60_000);
      const waiting = (await stored(key)).map((e) => e.event.context.id);
      expect(waiting[0]).toBe(beforeCrash[0]);

      await sink.start();
      await eventually('every event at the sink', async () => sink.events().length >= 5, 60_000);
      await eventually('the outbox emptied', async () => (await stored(key)).length === 0, 30_000);
      const got = sink.events();
      expect(got.map((e) => e.event.context.type.replace(/^dev\.cdevents\.|\.0\.3\.0$/g, ''))).toEqual(['environment.created', 'service.deployed', 'service.upgraded', 'service.rolledback', 'environment.modified']);
      expect(got.slice(2).map((e) => e.event.context.id)).toEqual(waiting);
      expect(got.map((e) => e.headers.authorization)).toEqual(Array(5).fill(TOKEN));
      for (const { event } of got) expect([event.context.type, schemaErrors(event)]).toEqual([event.context.type, []]);
    } finally {
      await sink.stop();
    }
  });

  it('reconciles and sends from memory when it may not keep outboxes (an install without the outbox Role), and says so', async () => {
    await agent?.stop();
    const other = await createTenant(client, 'agent-obf');
    const sink = await SinkProcess.create();
    await sink.start();
    agent = startAgentProcess(testAgentArgs({ kubeconfig, identity: 'agent-obf', namespace: other }, ['--poll-interval=1h', '--cdevents-outbox-namespace=default']));
    try {
      await agent.url;
      await eventually('the forbidden outbox reported', async () => agent!.logs().some((l) => l.msg === 'CDEvents outboxes cannot be read (forbidden): kept in memory only (grant the outbox Role in deploy/agent/rbac.yaml and restart)'), 30_000);
      const repo = projectRepository();
      const digest = await pushSingle(repo, moduleUrl, other, 'greet', 'latest', 'one');
      const base = projectObject('memo', other, repo);
      await applyObject(client, { ...base, spec: { ...(base.spec as object), cdevents: { sink: sink.url } } });
      await eventually('applied', async () => (await getProject(client, other, 'memo'))?.status?.lastAppliedRevision === `latest@${digest}`, 120_000);
      await eventually('the events at the sink', async () => sink.events().length === 2, 60_000);
    } finally {
      await sink.stop();
      await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: other }).catch(() => undefined);
    }
  });
});
