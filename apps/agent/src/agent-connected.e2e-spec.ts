import { adminManager, createTenant, unique } from '../../../libs/engine/testdata/harness';
import { eventually } from '../../../libs/kube/testdata/eventually';
import { launch, startTestHub, type TestHub } from '../../hub/test/hub';
import { fastScheduler } from '../../hub/test/scheduler-fixtures';
import { AgentCa } from '../../hub/src/agents/agent-ca.service';
import { AgentGrpcServer } from '../../hub/src/agents/agent-grpc.server';
import { defaultAgentServerConfig } from '../../hub/src/config/hub-config';
import { X509Certificate } from 'node:crypto';
import { EXPECTED_AGENT_VERSION, kubeconfigFile, startAgentProcess, testAgentArgs, type AgentProcess } from '../test/agent-process';
import { certificateFingerprint } from '@flotilla/agent-protocol';
import { DataSource } from 'typeorm';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_NAMESPACE, agentKubeconfig, installAgent, removeConnectedInstall } from '../test/install';
import type { ProjectResource } from './project/project-resource';
import { configMaps, getProject, projectObject, projectRepository, pushGreeter, pushGreeterModule, pushSingle } from '../test/project-fixtures';
import { greeterProjectFiles } from '../../hub/test/push-fixtures';
import { packPath } from '@flotilla/oci';
import { writeTree } from '../../../test/e2e/support/file-tree';
import { testDir } from '../../../test/harness/temp-dirs';

// The whole lightweight configuration: the hub (on the harness PostgreSQL)
// holds no credentials for the cluster; the compiled agent, with the token
// of the service account the install creates, registers with a bootstrap
// token and a CSR for a client certificate, talks mutual TLS from then on,
// writes its assignment as a Project resource, reconciles it from the
// harness registry into the harness API server, and reports back. Its
// certificate lives a minute here, so it renews it on its own. With the hub
// gone it keeps correcting drift; the reports it kept arrive when the hub is
// back.

jest.setTimeout(240_000);

describe('connected agent', () => {
  const { manager } = adminManager();
  const client = manager.client;
  let hub: TestHub;
  /** the first hub: its database and data directory go with it at the end */
  let first: TestHub;
  let agent: AgentProcess;
  let ns: string;
  let repo: string;
  let moduleUrl: string;
  const cluster = unique('spoke');
  // the name the install's identity Role allows (the only Secret of its namespace the agent may read or write)
  const identitySecret = 'flotilla-agent-identity';

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async function target(): Promise<any> {
    return (await hub.call('GET', `/api/v1/projects/greet/targets/${cluster}`)).body;
  }

  beforeAll(async () => {
    [moduleUrl, ns] = await Promise.all([pushGreeterModule(), createTenant(client, 'connected')]);
    repo = projectRepository();
    hub = first = await startTestHub('postgres', {
      scheduler: fastScheduler({ sourcePollMs: 300, hubId: 'hub-connected', concurrency: 4 }),
      agents: { ...defaultAgentServerConfig('127.0.0.1'), port: 0, certTtlMs: 60_000 },
    });
  });

  const cleanups: Array<() => Promise<void>> = [];

  afterAll(async () => {
    for (const c of cleanups) await c();
    await agent?.stop();
    if (hub !== first) await hub?.stop();
    await first?.close();
    await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns }).catch(() => undefined);
    await client.delete({ apiVersion: 'v1', kind: 'Secret', namespace: AGENT_NAMESPACE, name: identitySecret }).catch(() => undefined);
    // the API server is shared by the whole run: leave the agent's identity as the standalone install has it
    await removeConnectedInstall(client);
    await installAgent(client);
    await client.connection.close();
  });

  it('installs from the hub\'s manifest, registers, applies the assignment with the hub\'s digest, and the hub shows its status', async () => {
    const registered = await hub.call('POST', '/api/v1/clusters', { body: { name: cluster, group: 'edge', mode: 'agent' } });
    expect(registered.status).toBe(201);
    const viewer = (await hub.call('POST', '/api/v1/tokens', { body: { name: 'look', role: 'viewer' } })).body.token;
    expect((await hub.call('GET', `/api/v1/clusters/${cluster}/agent/manifest`, { token: viewer })).status).toBe(403);
    const manifest = await hub.call('GET', `/api/v1/clusters/${cluster}/agent/manifest`);
    expect(manifest.status).toBe(200);
    // the whole install is applying it (as kubectl apply -f does)
    const dir = testDir('agent-manifest-');
    writeFileSync(join(dir, 'install.yaml'), manifest.text);
    await installAgent(client, dir);
    const hubSecret = await client.get({ apiVersion: 'v1', kind: 'Secret', namespace: AGENT_NAMESPACE, name: 'flotilla-agent-hub' });
    const fromSecret = (k: string) => Buffer.from((hubSecret.data as Record<string, string>)[k], 'base64').toString();
    expect(fromSecret('hubAddress')).toBe(`127.0.0.1:${hub.app.get(AgentGrpcServer).port}`);
    expect(fromSecret('hubCa')).toBe(hub.app.get(AgentCa).certPem);
    const deployment = await client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: AGENT_NAMESPACE, name: 'flotilla-agent' });
    expect(JSON.stringify(deployment)).toContain(`--hub-address=${fromSecret('hubAddress')}`);
    // the token that came with the registration was replaced by the manifest's
    expect(fromSecret('bootstrapToken')).not.toBe(registered.body.agent.bootstrapToken);
    const kubeconfig = kubeconfigFile(await agentKubeconfig(client));
    agent = startAgentProcess(
      testAgentArgs({ kubeconfig, identity: 'agent-connected', namespace: ns }, [
        `--hub-address=${fromSecret('hubAddress')}`,
        `--hub-identity-secret=${AGENT_NAMESPACE}/${identitySecret}`,
        '--hub-heartbeat=500ms',
        '--hub-reconnect-max=1s',
        '--reconcile-interval=2s',
        '--retry-initial=500ms',
        '--retry-max=2s',
      ]),
      { FLOTILLA_HUB_BOOTSTRAP_TOKEN: fromSecret('bootstrapToken'), FLOTILLA_HUB_CA: fromSecret('hubCa') },
    );
    await agent.url;

    const digest = await pushGreeter(repo, moduleUrl, ns, { cache: true, shout: false });
    const created = await hub.call('POST', '/api/v1/projects', {
      // the agent runs it at this interval, the Project's, not at its own --reconcile-interval
      body: { name: 'greet', namespace: ns, serviceAccountName: 'deployer', source: { repository: repo, tag: 'latest' }, targets: { names: [cluster] }, interval: '10s' },
    });
    expect(created.status).toBe(201);

    const t = await eventually('Ready on the hub', async () => {
      const v = await target();
      return v.phase === 'Ready' ? v : undefined;
    }, 120_000);
    expect(t).toMatchObject({ lastAppliedRevision: `latest@${digest}`, stale: false, observedGeneration: 1 });
    expect(t.components.map((c: { name: string; status: string }) => `${c.name}:${c.status}`).sort()).toEqual(['app:Succeeded', 'infra:Succeeded']);
    expect((await configMaps(client, ns))['web-greeting']).toEqual({ greeting: 'web', cluster });

    // the assignment, as the standalone CRD, labelled as the hub's
    const project = await getProject(client, ns, 'greet');
    expect(project?.metadata.labels).toMatchObject({ 'app.kubernetes.io/managed-by': 'flotilla-hub' });
    expect(project?.metadata.annotations).toMatchObject({ 'hub.flotilla.dev/digest': digest });
    const view = (await hub.call('GET', `/api/v1/clusters/${cluster}`)).body;
    expect(view.agent).toMatchObject({ connected: true, registered: true, version: EXPECTED_AGENT_VERSION });
    // its key and certificate are kept in the agent's namespace; the certificate names the cluster
    const identity = await identityCert();
    expect(identity.subject).toContain(`CN=${cluster}`);
    expect(identity.checkIssued(new X509Certificate(hub.app.get(AgentCa).certPem))).toBe(true);
  });

  it("holds a tenant's Project to its tenant on the agent too: an instance outside the tenant's namespaces is refused there, before anything is applied", async () => {
    const elsewhere = unique('elsewhere');
    const fencedRepo = projectRepository();
    await pushSingle(fencedRepo, moduleUrl, elsewhere, 'stray');
    const tenant = { name: 'edge-team', destinations: { groups: ['edge'] }, namespaces: [ns], serviceAccounts: ['deployer'], repositories: [fencedRepo] };
    expect((await hub.call('POST', '/api/v1/tenants', { body: tenant })).status).toBe(201);
    // the hub admits it: the Project's own namespace and account are the tenant's; only the bundle reaches beyond
    const body = { name: 'fenced', tenant: 'edge-team', namespace: ns, serviceAccountName: 'deployer', source: { repository: fencedRepo }, targets: { names: [cluster] } };
    expect((await hub.call('POST', '/api/v1/projects', { body })).status).toBe(201);
    const refused = await eventually('the agent refuses it', async () => {
      const t = (await hub.call('GET', `/api/v1/projects/fenced/targets/${cluster}`)).body;
      return t.conditions?.some((c: { reason: string }) => c.reason === 'TenantPolicyRefused') ? t : undefined;
    }, 120_000);
    const ready = refused.conditions.find((c: { type: string }) => c.type === 'Ready');
    expect(ready).toMatchObject({ status: 'False', reason: 'TenantPolicyRefused' });
    expect(ready.message).toContain(`instance stray would go to namespace "${elsewhere}", outside tenant "edge-team"'s namespaces [${ns}] (rule: namespaces)`);
    // the limits came with the assignment, onto the spoke's Project resource
    const onSpoke = await getProject(client, ns, 'fenced');
    expect(JSON.parse(onSpoke!.metadata.annotations!['hub.flotilla.dev/tenant-policy'])).toEqual({ tenant: 'edge-team', namespaces: [ns], serviceAccounts: ['deployer'] });
    expect(await client.get({ apiVersion: 'v1', kind: 'Namespace', name: elsewhere }).catch(() => null)).toBeNull();
    expect((await hub.call('DELETE', '/api/v1/projects/fenced?instances=orphan')).status).toBe(200);
    expect((await hub.call('DELETE', '/api/v1/tenants/edge-team')).status).toBe(204);
  });

  it('answers the fleet diff with its own engine and credentials: a new tag, the Project\'s own tag and an upload; nothing is applied', async () => {
    const before = await configMaps(client, ns);
    const versions = async () => Object.fromEntries((await client.list('v1', 'ConfigMap', { namespace: ns })).map((m) => [m.metadata.name, m.metadata.resourceVersion]));
    const versionsBefore = await versions();
    const v2 = await pushGreeter(repo, moduleUrl, ns, { cache: false, shout: true }, 'v2');
    const diff = async (body: object) => {
      const res = await hub.call('POST', `/api/v1/projects/greet/diff?cluster=${cluster}`, { body });
      expect(res.status).toBe(200);
      expect(res.body.clusters).toHaveLength(1);
      return res.body.clusters[0];
    };

    const next = await diff({ tag: 'v2' });
    expect(next).toMatchObject({ cluster, mode: 'agent', state: 'diffed', revision: `v2@${v2}`, message: null, errors: [] });
    // shouting adds a ConfigMap to web; the cache instance goes
    expect(next.objects.map((o: { subject: string; action: string; instance: string; component: string }) => [o.subject, o.action, o.instance, o.component])).toEqual([
      [`ConfigMap/${ns}/web-shout`, 'created', `${ns}/web`, 'app'],
      [`ConfigMap/${ns}/cache-greeting`, 'pruned', `${ns}/cache`, 'infra'],
    ]);
    expect(next.objects[0].diff).toContain(`+++ ConfigMap/${ns}/web-shout (after)`);
    expect(next.counts).toMatchObject({ created: 1, changed: 0, pruned: 1 });

    // what the Project's tag points at is what the agent applied: nothing to change
    const same = await diff({});
    expect(same).toMatchObject({ state: 'diffed', revision: expect.stringMatching(/^latest@sha256:/), counts: { created: 0, changed: 0, pruned: 0 } });
    expect(same.counts.unchanged).toBeGreaterThan(0);

    // an upload travels to the agent in the request
    const upload = await packPath(writeTree(greeterProjectFiles(moduleUrl, ns, { cache: true, shout: true })));
    const uploaded = await diff({ artifact: upload.data.toString('base64') });
    expect(uploaded).toMatchObject({ state: 'diffed', revision: 'upload', counts: { created: 1, changed: 0, pruned: 0 } });

    // the agent's own errors come back as the cluster's failure
    const missing = await diff({ tag: 'no-such-tag' });
    expect(missing).toMatchObject({ state: 'failed', message: expect.stringMatching(new RegExp(`^the agent of cluster ${cluster}: resolve .*:no-such-tag: `)) });

    // nothing was applied on the spoke
    expect(await configMaps(client, ns)).toEqual(before);
    expect(await versions()).toEqual(versionsBefore);
  });

  it('follows a new tag set on the hub: the Project resource (its source immutable) is recreated, its instances kept, and it converges', async () => {
    const uidOf = async (name: string) => (await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name })).metadata.uid;
    const dbBefore = await uidOf('db-greeting');
    const resourceBefore = (await getProject(client, ns, 'greet'))?.metadata.uid;
    const v2 = await pushGreeter(repo, moduleUrl, ns, { cache: false, shout: true }, 'v2');
    expect((await hub.call('PATCH', '/api/v1/projects/greet', { body: { source: { tag: 'v2' } } })).status).toBe(200);
    await eventually('Ready on v2 on the hub', async () => ((await target()).lastAppliedRevision === `v2@${v2}` && (await target()).phase === 'Ready' ? true : undefined), 90_000);
    const project = await getProject(client, ns, 'greet');
    expect(project?.spec.source.tag).toBe('v2');
    expect(project?.metadata.uid).not.toBe(resourceBefore);
    const maps = await configMaps(client, ns);
    expect(Object.keys(maps).sort()).toEqual(['db-greeting', 'web-greeting', 'web-shout']);
    // the db instance was taken over, not deleted and made again
    expect(await uidOf('db-greeting')).toBe(dbBefore);
  });

  it('an assignment the cluster refuses to store is reported at once as the run\'s failure, with the API server\'s reason', async () => {
    // an admission policy of the spoke's operator refuses the Project resource itself
    const policy = `flotilla-test-${cluster}`;
    const blocked = await createTenant(client, 'blocked');
    cleanups.push(async () => {
      await client.delete({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', name: policy }).catch(() => undefined);
      await client.delete({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', name: policy }).catch(() => undefined);
      await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: blocked }).catch(() => undefined);
    });
    await client.apply(
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: policy },
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: { resourceRules: [{ apiGroups: ['projects.timoni.sh'], apiVersions: ['*'], operations: ['CREATE', 'UPDATE'], resources: ['projects'] }] },
          validations: [{ expression: `object.metadata.namespace != '${blocked}'`, message: 'no Projects in this namespace, by order of the spoke' }],
        },
      },
      { dryRun: false, force: true, fieldManager: 'flotilla-test' },
    );
    await client.apply(
      { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: policy }, spec: { policyName: policy, validationActions: ['Deny'] } },
      { dryRun: false, force: true, fieldManager: 'flotilla-test' },
    );
    // the policy is in force once the API server refuses a Project there
    await eventually('the policy in force', async () => {
      try {
        await client.apply({ ...projectObject('probe', blocked, repo), metadata: { name: 'probe', namespace: blocked } }, { dryRun: true, force: true, fieldManager: 'flotilla-test' });
        return undefined;
      } catch {
        return true;
      }
    }, 30_000);
    const created = await hub.call('POST', '/api/v1/projects', {
      body: { name: 'held-back', namespace: blocked, serviceAccountName: 'deployer', source: { repository: repo, tag: 'latest' }, targets: { names: [cluster] } },
    });
    expect(created.status).toBe(201);
    const failed = await eventually('the Target failed with the reason', async () => {
      const t = (await hub.call('GET', `/api/v1/projects/held-back/targets/${cluster}`)).body;
      return t.phase === 'Failed' ? t : undefined;
    }, 60_000);
    const ready = failed.conditions.find((c: { type: string }) => c.type === 'Ready');
    expect(ready).toMatchObject({ status: 'False', message: expect.stringContaining(`the assignment could not be written as Project ${blocked}/held-back`) });
    expect(ready.message).toContain('no Projects in this namespace, by order of the spoke');
    // deleting it: there is no Project resource to delete, and the agent says so at once
    expect((await hub.call('DELETE', '/api/v1/projects/held-back')).status).toBe(202);
    await eventually('the Project gone from the hub', async () => ((await hub.call('GET', '/api/v1/projects/held-back')).status === 404 ? true : undefined), 30_000);
  });

  it('never replaces or deletes a Project a tenant of the spoke made under the same name: the Target fails with the conflict, and deleting it on the hub leaves it', async () => {
    const tenant = await createTenant(client, 'own');
    cleanups.push(async () => {
      await client.connection.request({ method: 'DELETE', path: `/apis/projects.timoni.sh/v1alpha1/namespaces/${tenant}/projects` }).catch(() => undefined);
      await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: tenant }).catch(() => undefined);
    });
    // the tenant's own standalone Project (another source, no hub label), made before the hub assigns one of that name
    const theirs = projectObject('mine', tenant, 'oci://127.0.0.1:9/tenant/own', { 'reconcile.timoni.sh/suspend': 'true' });
    await client.apply(theirs, { dryRun: false, force: true, fieldManager: 'tenant' });
    const before = (await getProject(client, tenant, 'mine'))!;
    const created = await hub.call('POST', '/api/v1/projects', {
      body: { name: 'mine', namespace: tenant, serviceAccountName: 'deployer', source: { repository: repo, tag: 'latest' }, targets: { names: [cluster] } },
    });
    expect(created.status).toBe(201);
    const untouched = (now: ProjectResource | undefined) =>
      !!now && now.metadata.uid === before.metadata.uid && !now.metadata.deletionTimestamp && JSON.stringify(now.spec) === JSON.stringify(before.spec) &&
      JSON.stringify(now.metadata.labels ?? {}) === JSON.stringify(before.metadata.labels ?? {}) && JSON.stringify(now.metadata.annotations ?? {}) === JSON.stringify(before.metadata.annotations ?? {});
    const kept = async () => {
      const now = await getProject(client, tenant, 'mine');
      expect(now?.metadata.uid).toBe(before.metadata.uid);
      expect(now?.metadata.deletionTimestamp).toBeUndefined();
      expect(now?.spec).toEqual(before.spec);
      expect(now?.metadata.labels).toEqual(before.metadata.labels);
      expect(now?.metadata.annotations).toEqual(before.metadata.annotations);
    };
    // the positive signal either way: the Target's run ended, or the agent laid hands on the tenant's Project
    const settled = await eventually('the Target settled, or the tenant\'s Project touched', async () => {
      const t = (await hub.call('GET', `/api/v1/projects/mine/targets/${cluster}`)).body;
      if (t.phase === 'Failed' || t.phase === 'Ready') return t;
      return untouched(await getProject(client, tenant, 'mine')) ? undefined : t;
    }, 60_000);
    await kept();
    expect(settled.phase).toBe('Failed');
    const ready = settled.conditions.find((c: { type: string }) => c.type === 'Ready');
    expect(ready.message).toContain(`Project ${tenant}/mine already exists in the cluster and was not made by the hub`);
    // deleting the hub's Project: the agent deletes nothing of the tenant's and says the run is done
    expect((await hub.call('DELETE', '/api/v1/projects/mine')).status).toBe(202);
    await eventually('the Project gone from the hub', async () => ((await hub.call('GET', '/api/v1/projects/mine')).status === 404 ? true : undefined), 30_000);
    await kept();
  });

  it('renews its certificate two thirds into its life, saves it and goes on with it', async () => {
    const before = await identityCert();
    const renewed = await eventually('a renewed certificate in the Secret', async () => {
      const now = await identityCert();
      return now.fingerprint256 !== before.fingerprint256 ? now : undefined;
    }, 90_000);
    expect(Date.parse(renewed.validTo)).toBeGreaterThan(Date.parse(before.validTo));
    // connected again, with the new one (the hub lets the old one go once it is used)
    await eventually('reconnected with the renewed certificate', async () => {
      const rows: Array<{ cert_fingerprint: string; previous_cert_fingerprint: string | null }> = await hub.app.get(DataSource).query(
        `SELECT l.cert_fingerprint, l.previous_cert_fingerprint FROM agent_links l JOIN clusters c ON c.id = l.cluster_id WHERE c.name = $1`,
        [cluster],
      );
      const connected = (await hub.call('GET', `/api/v1/clusters/${cluster}`)).body.agent.connected;
      return connected && rows[0]?.previous_cert_fingerprint === null && rows[0].cert_fingerprint === certificateFingerprint(renewed.raw) ? true : undefined;
    }, 30_000);
  });

  async function identityCert(): Promise<X509Certificate> {
    const secret = await client.get({ apiVersion: 'v1', kind: 'Secret', namespace: AGENT_NAMESPACE, name: identitySecret });
    const data = secret.data as Record<string, string>;
    expect(Object.keys(data).sort()).toEqual(['clusterName', 'tls.crt', 'tls.key']);
    return new X509Certificate(Buffer.from(data['tls.crt'], 'base64'));
  }

  it('keeps correcting drift while the hub is down, and the reports it kept arrive when the hub is back', async () => {
    // the agent dials the same address when the hub comes back
    const config = { ...hub.config, agents: { ...hub.config.agents, port: hub.app.get(AgentGrpcServer).port } };
    await hub.stop();
    const deletedAt = Date.now();
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'web-greeting' });
    // a run that ended after the deletion (its status says when the next one is due: its end plus the Project's 10 s interval)
    await eventually('drift corrected without the hub', async () => {
      const p = await getProject(client, ns, 'greet');
      const ranAfter = Date.parse(p?.status?.nextReconcileAt ?? '') - 10_000 > deletedAt;
      return ranAfter && (await configMaps(client, ns))['web-greeting'] ? true : undefined;
    }, 60_000);

    const upAt = Date.now();
    const restarted = await launch(config);
    hub = { ...restarted, close: () => restarted.stop() };
    await eventually('the agent back', async () => ((await restarted.call('GET', `/api/v1/clusters/${cluster}`)).body.agent.connected ? true : undefined), 30_000);
    // a run the agent made at its interval while nobody listened, stored with the times it ran
    const during = (r: { trigger: string; finishedAt: string }) => r.trigger === 'Interval' && Date.parse(r.finishedAt) > deletedAt && Date.parse(r.finishedAt) <= upAt;
    const runs = await eventually('the kept reports stored', async () => {
      const items = (await restarted.call('GET', `/api/v1/projects/greet/targets/${cluster}/runs?limit=100`)).body.items;
      return items.some(during) ? items : undefined;
    }, 60_000);
    expect(runs.find(during)).toMatchObject({ result: 'Succeeded' });
  });

  it('SIGKILL of the agent: the hub shows the cluster Disconnected and its Target stale, never plainly Ready', async () => {
    await agent.kill();
    const view = await eventually('disconnected', async () => {
      const c = (await hub.call('GET', `/api/v1/clusters/${cluster}`)).body;
      return c.agent.connected ? undefined : c;
    }, 30_000);
    expect(view.agent).toMatchObject({ connected: false, since: expect.any(String) });
    const t = await target();
    expect(t).toMatchObject({ phase: 'Ready', stale: true, staleSince: expect.any(String) });
    expect(t.conditions.find((c: { type: string }) => c.type === 'Ready')).toMatchObject({ status: 'Unknown', reason: 'AgentDisconnected', message: expect.stringContaining('it last reported Ready') });
  });
});
