import { newAgentKeyRequest } from '@flotilla/agent-protocol';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { X509Certificate } from 'node:crypto';
import { DataSource } from 'typeorm';
import { startTestHub, type TestHub } from '../../test/hub';
import { eventually, fastScheduler } from '../../test/scheduler-fixtures';
import { SimulatedAgent, type SimulatedIdentity } from '../../test/simulated-agent';
import type { TagResolver } from '../../test/scheduler-fixtures';
import { AgentCa } from './agent-ca.service';
import { AgentGrpcServer } from './agent-grpc.server';
import { CertificateAuthority } from './certificate-authority';

// The hub's side of connected agents, on the harness PostgreSQL, with
// agents that speak the real protocol over real mutual-TLS gRPC connections:
// identity (bootstrap tokens, client certificates, renewal, revocation),
// assignments carrying the digest the hub chose, and reports stored as the
// Target's status and runs.

jest.setTimeout(120_000);

/** Digests by repository, set by the test. */
class SettableResolver implements TagResolver {
  readonly digests = new Map<string, string>();
  async resolve(repository: string): Promise<string> {
    const d = this.digests.get(repository);
    if (!d) throw new Error(`no digest for ${repository}`);
    return d;
  }
}

const digest = (c: string) => `sha256:${c.repeat(64)}`;

describe('connected agents on the hub', () => {
  let hub: TestHub;
  let address: string;
  const resolver = new SettableResolver();
  const agents: SimulatedAgent[] = [];
  let edge1: SimulatedAgent;
  let edge2: SimulatedAgent;
  let caPem: string;

  function agent(ca = caPem): SimulatedAgent {
    const a = new SimulatedAgent(address, ca);
    agents.push(a);
    return a;
  }

  async function registerCluster(name: string, group = 'default'): Promise<string> {
    const res = await hub.call('POST', '/api/v1/clusters', { body: { name, group, mode: 'agent' } });
    expect(res.status).toBe(201);
    expect(res.body.agent).toMatchObject({ connected: false, registered: false, bootstrapToken: expect.stringMatching(/^flb_/) });
    return res.body.agent.bootstrapToken;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async function target(project: string, cluster: string): Promise<any> {
    return (await hub.call('GET', `/api/v1/projects/${project}/targets/${cluster}`)).body;
  }

  beforeAll(async () => {
    hub = await startTestHub('postgres', { scheduler: fastScheduler({ sourcePollMs: 200, hubId: 'hub-a' }) }, { scheduler: { tagResolver: resolver } });
    address = `127.0.0.1:${hub.app.get(AgentGrpcServer).port}`;
    caPem = hub.app.get(AgentCa).certPem;
  });

  afterAll(async () => {
    for (const a of agents) a.close();
    await hub?.close();
  });

  it('registers with a one-time token, gets the digest the hub chose, and its report becomes the Target status', async () => {
    const token = await registerCluster('edge-1', 'edge');
    const a = (edge1 = agent());
    await expect(a.register('flb_' + 'x'.repeat(43))).rejects.toMatchObject({ code: GrpcStatus.UNAUTHENTICATED });
    // a CSR the hub cannot sign is refused, and the token is still good
    await expect(a.register(token, 'not a csr')).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT, details: expect.stringContaining('not a PEM PKCS#10 request') });
    // an agent that trusts another CA does not talk to this hub at all
    await expect(agent((await CertificateAuthority.create()).certPem).register(token)).rejects.toMatchObject({ code: GrpcStatus.UNAVAILABLE });
    await a.register(token);
    expect(a.clusterName).toBe('edge-1');
    // a client certificate naming the cluster, from the hub's CA
    const cert = new X509Certificate(a.identity!.certPem);
    expect(cert.subject).toContain('CN=edge-1');
    expect(cert.checkIssued(new X509Certificate(caPem))).toBe(true);
    // the token was used: nobody else registers with it
    await expect(agent().register(token)).rejects.toMatchObject({ code: GrpcStatus.UNAUTHENTICATED, details: expect.stringContaining('used or expired') });

    a.connect();
    await a.until(() => a.received.find((m) => m.body?.$case === 'assignments'));
    const view = await eventually('connected', async () => {
      const c = (await hub.call('GET', '/api/v1/clusters/edge-1')).body;
      return c.agent.connected ? c : undefined;
    });
    expect(view.agent).toMatchObject({ connected: true, registered: true, version: 'sim-1', since: expect.any(String), lastHeartbeat: expect.any(String) });
    expect(view.agent.bootstrapToken).toBeUndefined();

    resolver.digests.set('oci://registry.example/web', digest('a'));
    const created = await hub.call('POST', '/api/v1/projects', {
      body: { name: 'web', namespace: 'web', source: { repository: 'oci://registry.example/web', tag: 'stable' }, annotations: { team: 'a' }, targets: { names: ['edge-1'] } },
    });
    expect(created.status).toBe(201);
    const assignment = await a.until(() => [...a.assignments.values()].find((x) => x.projectName === 'web'));
    expect(assignment).toMatchObject({ digest: digest('a'), tag: 'stable', repository: 'oci://registry.example/web', clusterName: 'edge-1', clusterGroup: 'edge', projectNamespace: 'web', delete: false });
    expect(assignment.annotations).toMatchObject({ team: 'a' });

    const t = await eventually('Ready', async () => ((await target('web', 'edge-1')).phase === 'Ready' ? target('web', 'edge-1') : undefined));
    expect(t).toMatchObject({ lastAppliedRevision: `stable@${digest('a')}`, observedGeneration: 1 });
    const runs = (await hub.call('GET', '/api/v1/projects/web/targets/edge-1/runs')).body.items;
    expect(runs[0]).toMatchObject({ result: 'Succeeded', revision: `stable@${digest('a')}`, leaseOwner: 'hub-a' });
    await a.until(() => (a.unacked.size === 0 ? true : undefined));

    // a new digest reaches the agent as a change with a later generation
    resolver.digests.set('oci://registry.example/web', digest('b'));
    const next = await a.until(() => {
      const x = a.assignments.get(assignment.targetId);
      return x && x.digest === digest('b') ? x : undefined;
    });
    expect(next.generation).toBeGreaterThan(assignment.generation);
    await eventually('new revision applied', async () => ((await target('web', 'edge-1')).lastAppliedRevision === `stable@${digest('b')}` ? true : undefined));
  });

  it('keeps one cluster\'s work from another cluster\'s agent', async () => {
    const tokenB = await registerCluster('edge-2');
    const b = (edge2 = agent());
    await b.register(tokenB);
    b.connect();
    await b.until(() => b.received.find((m) => m.body?.$case === 'assignments'));
    const web = edge1;
    const webTarget = [...web.assignments.values()][0];
    // B reports on A's Target: dropped, and A's Target keeps A's status
    const before = await target('web', 'edge-1');
    const forged = b.reportFor({ ...webTarget, digest: digest('f') }, false);
    b.send({ body: { $case: 'report', value: forged } });
    await b.until(() => b.received.find((m) => m.body?.$case === 'reportAck' && m.body.value.reportId === forged.reportId));
    expect((await target('web', 'edge-1')).lastAppliedRevision).toBe(before.lastAppliedRevision);
    expect(b.assignments.size).toBe(0);
    // nor does a stream without a certificate the hub issued to a cluster get anything:
    // none, one of another CA, one of this CA that no cluster holds
    const otherCa = await CertificateAuthority.create();
    const issuedBy = async (ca: CertificateAuthority): Promise<SimulatedIdentity> => {
      const req = await newAgentKeyRequest();
      return { keyPem: req.keyPem, certPem: (await ca.signAgent(req.csrPem, { id: 'x', name: 'edge-1' }, 3600_000)).pem };
    };
    for (const identity of [undefined, await issuedBy(otherCa), await issuedBy(hub.app.get(AgentCa).ca)]) {
      const stranger = agent();
      stranger.connect(identity);
      await stranger.until(() => stranger.ended);
      expect(stranger.ended).toMatchObject({ code: GrpcStatus.UNAUTHENTICATED });
      expect(stranger.assignments.size).toBe(0);
    }
  });

  it('refuses an expired bootstrap token', async () => {
    const token = await registerCluster('edge-3');
    await hub.app.get(DataSource).query(`UPDATE agent_links SET bootstrap_expires_at = now() - interval '1 second' FROM clusters c WHERE c.id = agent_links.cluster_id AND c.name = 'edge-3'`);
    await expect(agent().register(token)).rejects.toMatchObject({ code: GrpcStatus.UNAUTHENTICATED, details: expect.stringContaining('used or expired') });
    expect((await hub.call('GET', '/api/v1/clusters/edge-3/agent')).body).toMatchObject({ registered: false });
  });

  it('renews the certificate over the stream: the new one connects, then the old one is refused', async () => {
    const a = edge1;
    const old = a.identity!;
    // a bad CSR changes nothing
    a.send({ body: { $case: 'renew', value: { csrPem: 'nope' } } });
    await a.until(() => a.received.find((m) => m.body?.$case === 'renewed' && m.body.value.error.includes('not a PEM PKCS#10 request')));
    expect(a.identity).toBe(old);
    const renewed = await a.renew();
    expect(renewed.error).toBe('');
    expect(a.identity).not.toBe(old);
    expect(new X509Certificate(renewed.certificatePem).subject).toContain('CN=edge-1');
    // the stream that renewed goes on until the agent switches
    expect(a.ended).toBeUndefined();
    a.disconnect();
    const sets = a.received.filter((m) => m.body?.$case === 'assignments').length;
    a.connect();
    await a.until(() => (a.received.filter((m) => m.body?.$case === 'assignments').length > sets ? true : undefined));
    // connected with the new one: the old one is done
    const stale = agent();
    stale.connect(old);
    await stale.until(() => stale.ended);
    expect(stale.ended).toMatchObject({ code: GrpcStatus.UNAUTHENTICATED });
  });

  it('stores a report the agent made on its own once, even when it is sent again', async () => {
    const a = edge1;
    const assignment = [...a.assignments.values()][0];
    const own = a.reportFor(assignment, true);
    a.unacked.set(own.reportId, own);
    a.send({ body: { $case: 'report', value: own } });
    await a.until(() => (a.unacked.has(own.reportId) ? undefined : true));
    // a run of an assignment the agent had reported on already: its own interval
    const count = async () => (await hub.call('GET', '/api/v1/projects/web/targets/edge-1/runs?limit=100')).body.items.filter((r: { trigger: string }) => r.trigger === 'Interval').length;
    expect(await count()).toBe(1);
    // replayed in a hello after a reconnect: acknowledged, not stored twice
    a.unacked.set(own.reportId, own);
    a.disconnect();
    a.connect();
    await a.until(() => (a.unacked.has(own.reportId) ? undefined : true));
    expect(await count()).toBe(1);
  });

  it('sends a new digest to the agent without waiting on any Run row, and stores the run the agent reports once', async () => {
    const a = edge1;
    const { targetId } = [...a.assignments.values()][0];
    const runsOn = async (d: string) => ((await hub.call('GET', '/api/v1/projects/web/targets/edge-1/runs?limit=100')).body.items as Array<{ revision: string; result: string; trigger: string }>).filter((r) => r.revision === `stable@${d}`);
    // while this transaction holds runs in SHARE mode no Run row can be inserted: the ack must not wait for one
    const q = hub.app.get(DataSource).createQueryRunner();
    await q.connect();
    await q.startTransaction();
    try {
      await q.query('LOCK TABLE runs IN SHARE MODE');
      resolver.digests.set('oci://registry.example/web', digest('c'));
      await a.until(() => (a.assignments.get(targetId)?.digest === digest('c') ? true : undefined));
      expect(await runsOn(digest('c'))).toEqual([]);
    } finally {
      await q.commitTransaction();
      await q.release();
    }
    const runs = await eventually('stored', async () => ((await runsOn(digest('c')))[0]?.result === 'Succeeded' ? runsOn(digest('c')) : undefined));
    expect(runs).toEqual([expect.objectContaining({ trigger: 'NewRevision' })]);
    // sent once: the desired state changed once
    const sent = a.received.filter((m) => m.body?.$case === 'change' && m.body.value.change?.$case === 'assignment' && m.body.value.change.value.digest === digest('c'));
    expect(sent).toHaveLength(1);
  });

  it('cuts off the agent of a reset or deleted cluster', async () => {
    const b = edge2;
    const reset = await hub.call('POST', '/api/v1/clusters/edge-2/agent/reset');
    expect(reset.status).toBe(200);
    expect(reset.body.bootstrapToken).toMatch(/^flb_/);
    await b.until(() => b.ended);
    const old = b.identity;
    b.connect(old);
    await b.until(() => b.ended);
    expect(b.ended).toMatchObject({ code: GrpcStatus.UNAUTHENTICATED });
    // the new token brings it back, the cluster as it was
    await b.register(reset.body.bootstrapToken);
    b.connect();
    await b.until(() => b.received.filter((m) => m.body?.$case === 'assignments').length >= 2 ? true : undefined);

    // the stream may end before the DELETE's answer arrives
    b.ended = undefined;
    expect((await hub.call('DELETE', '/api/v1/clusters/edge-2')).status).toBe(204);
    await b.until(() => b.ended);
    b.connect();
    await b.until(() => b.ended);
    expect(b.ended).toMatchObject({ code: GrpcStatus.UNAUTHENTICATED });
  });

  it('cuts a stream that outlives its certificate', async () => {
    const a = edge1;
    a.ended = undefined;
    // as if the certificate had run out while the stream stayed open (TLS looks at expiry only when it opens)
    await hub.app.get(DataSource).query(`UPDATE agent_links SET cert_expires_at = now() - interval '1 second' FROM clusters c WHERE c.id = agent_links.cluster_id AND c.name = 'edge-1'`);
    await a.until(() => a.ended, 30_000);
    a.connect();
    await a.until(() => a.ended);
    expect(a.ended).toMatchObject({ code: GrpcStatus.UNAUTHENTICATED });
  });

  it('shows the cluster Disconnected when its agent goes away', async () => {
    edge1.disconnect();
    const c = await eventually('disconnected', async () => {
      const v = (await hub.call('GET', '/api/v1/clusters/edge-1')).body;
      return v.agent.connected ? undefined : v;
    });
    expect(c.agent).toMatchObject({ connected: false, since: expect.any(String), registered: true });
  });
});
