import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaultPushModuleOptions, pushModule, RegistryClient } from '@flotilla/oci';
import { harnessEnv } from '../../../../test/harness/env';
import { pushProject, unique } from '../../../../libs/engine/testdata/harness';
import { startTestHub, type TestHub } from '../../test/hub';
import { kubeconfigYaml } from '../../test/kubeconfig';
import { greeterProjectFiles, GREETER_MODULE_DIR } from '../../test/push-fixtures';
import { eventually, fastScheduler } from '../../test/scheduler-fixtures';
import { defaultCdeventsConfig } from '../config/cdevents-config';
import { CdeventsDelivery } from '../cdevents/delivery.service';

// The hub's egress policy and what of remote answers reaches API users, against the
// real hub: the harness API server and registry, and a real listener on loopback
// posing as a cluster, a registry and a sink (the metadata service, a database, …).

jest.setTimeout(180_000);

const MARKER = 'SECRET-METADATA-BODY';
const kube = () => harnessEnv().kube;
const noLoopback = { allow: [], deny: [], allowLoopback: false };

function pushCluster(name: string, server: string, extra: Record<string, unknown> = {}) {
  return { body: { name, mode: 'push', endpoint: { server, caData: kube().caData }, credentials: { token: kube().admin.token }, ...extra } };
}

describe('a hub whose egress policy does not allow loopback', () => {
  let hub: TestHub;
  beforeAll(async () => (hub = await startTestHub('postgres', { egress: noLoopback })));
  afterAll(() => hub?.close());

  it('refuses to register a cluster at a loopback or metadata address, naming the field, and stores nothing', async () => {
    const port = new URL(kube().server).port;
    for (const [name, server, why] of [
      ['lo', `https://127.0.0.1:${port}`, '127.0.0.1 is loopback'],
      ['lo6', `https://[::1]:${port}`, '::1 is loopback'],
      ['imds', 'https://169.254.169.254', '169.254.169.254 is a cloud metadata address'],
      ['gce', 'https://metadata.google.internal', 'metadata.google.internal is a cloud metadata service'],
    ]) {
      const res = await hub.call('POST', '/api/v1/clusters', pushCluster(name, server));
      expect([name, res.status]).toEqual([name, 403]);
      expect(res.body.message).toContain(`endpoint.server: ${why}`);
      expect(res.body.message).toContain('FLOTILLA_EGRESS_ALLOW_LOOPBACK');
      expect((await hub.call('GET', `/api/v1/clusters/${name}`)).status).toBe(404);
    }
  });

  it('refuses a name that resolves to loopback when it connects, on the resolved address', async () => {
    const server = kube().server.replace('127.0.0.1', 'localhost');
    const res = await hub.call('POST', '/api/v1/clusters', pushCluster('by-name', server));
    expect(res.status).toBe(201);
    expect(res.body.status).toMatchObject({ reachable: false, version: null });
    expect(res.body.status.error).toMatch(/refused by the egress policy: (127\.0\.0\.1|::1) is loopback/);
  });

  it('refuses plain http:// with credentials off loopback, for an endpoint and a kubeconfig, before connecting', async () => {
    const endpoint = await hub.call('POST', '/api/v1/clusters', { body: { name: 'clear', mode: 'push', endpoint: { server: 'http://10.0.0.1:8080' }, credentials: { token: 't0ken' } } });
    expect(endpoint.status).toBe(403);
    expect(endpoint.body.message).toContain("endpoint.server: plain http:// would send the cluster's credentials in clear; use https://");
    const kubeconfig = kubeconfigYaml({ server: 'http://10.0.0.1:8080', token: 't0ken' });
    const kc = await hub.call('POST', '/api/v1/clusters', { body: { name: 'clear-kc', mode: 'push', credentials: { kubeconfig } } });
    expect(kc.status).toBe(403);
    expect(kc.body.message).toContain("credentials.kubeconfig server: plain http:// would send the cluster's credentials in clear");
    for (const name of ['clear', 'clear-kc']) expect((await hub.call('GET', `/api/v1/clusters/${name}`)).status).toBe(404);
  });
});

describe('Projects that name a registry or a sink the hub may not reach', () => {
  let hub: TestHub;
  beforeAll(async () => (hub = await startTestHub('postgres', { egress: noLoopback })));
  afterAll(() => hub?.close());
  const project = (name: string, extra: Record<string, unknown>) => ({ body: { name, namespace: 'apps', source: { repository: 'oci://registry.example.com/acme/app' }, targets: { names: ['nowhere'] }, ...extra } });

  it('refuses a registry or sink at a metadata or loopback address, naming the field, and stores nothing', async () => {
    const registry = await hub.call('POST', '/api/v1/projects', project('imds-registry', { source: { repository: 'oci://169.254.169.254/latest/app' } }));
    expect(registry.status).toBe(403);
    expect(registry.body.message).toContain('source.repository: 169.254.169.254 is a cloud metadata address');
    const sink = await hub.call('POST', '/api/v1/projects', project('lo-sink', { cdeventsSink: 'http://127.0.0.1:9/events' }));
    expect(sink.status).toBe(403);
    expect(sink.body.message).toContain('cdeventsSink: 127.0.0.1 is loopback');
    for (const name of ['imds-registry', 'lo-sink']) expect((await hub.call('GET', `/api/v1/projects/${name}`)).status).toBe(404);
  });

  it('refuses a sink header over plain http off loopback, at creation and when a patch adds it', async () => {
    const header = { name: 'Authorization', value: 'Bearer s3cret-value' };
    const created = await hub.call('POST', '/api/v1/projects', project('clear-sink', { cdeventsSink: 'http://10.0.0.1:8080/events', cdeventsSinkHeader: header }));
    expect(created.status).toBe(403);
    expect(created.body.message).toContain('cdeventsSink: plain http:// would send cdeventsSinkHeader in clear; use https://');
    // without a header, plain http is the operator's choice
    expect((await hub.call('POST', '/api/v1/projects', project('open-sink', { cdeventsSink: 'http://10.0.0.1:8080/events' }))).status).toBe(201);
    const patched = await hub.call('PATCH', '/api/v1/projects/open-sink', { body: { cdeventsSinkHeader: header } });
    expect(patched.status).toBe(403);
    expect(patched.body.message).toContain('cdeventsSink: plain http:// would send cdeventsSinkHeader in clear');
    expect((await hub.call('GET', '/api/v1/projects/open-sink')).body).toMatchObject({ cdeventsSinkHeader: null, generation: 1 });
  });
});

describe('allow and deny lists', () => {
  it('lets a loopback address in the allow list through, and the deny list win over it', async () => {
    const allowed = await startTestHub('postgres', { egress: { allow: ['127.0.0.1'], deny: [], allowLoopback: false } });
    try {
      const res = await allowed.call('POST', '/api/v1/clusters', pushCluster('allowed', kube().server));
      expect(res.status).toBe(201);
      expect(res.body.status).toMatchObject({ reachable: true, version: kube().version, error: null });
    } finally {
      await allowed.close();
    }
    const denied = await startTestHub('postgres', { egress: { allow: ['127.0.0.1'], deny: ['127.0.0.0/8'], allowLoopback: true } });
    try {
      const res = await denied.call('POST', '/api/v1/clusters', pushCluster('denied', kube().server));
      expect(res.status).toBe(403);
      expect(res.body.message).toContain('endpoint.server: 127.0.0.1 is on the egress deny list');
    } finally {
      await denied.close();
    }
  });
});

describe('answers of a server posing as a cluster, a registry and a sink', () => {
  let hub: TestHub;
  let hostile: Server;
  let base: string;
  let ns: string;

  beforeAll(async () => {
    // small enough that an error body read whole would have carried it
    const body = `${MARKER} root:x:0:0 password=hunter2\n`.repeat(512);
    hostile = createServer((req, res) => {
      req.resume();
      // enough of an API server to be registered as reachable, and a registry HEAD without
      // a digest (so the client GETs the manifest); every other answer is the secret
      if (req.method === 'HEAD') return res.writeHead(200).end();
      if (req.url === '/version') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ gitVersion: 'v1.36.0', major: '1', minor: '36' }));
      }
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(body);
    });
    await new Promise<void>((r) => hostile.listen(0, '127.0.0.1', r));
    base = `127.0.0.1:${(hostile.address() as AddressInfo).port}`;
    hub = await startTestHub('postgres', {
      scheduler: fastScheduler({ sourcePollMs: 500, concurrency: 2, hubId: 'hub-egress' }),
      cdevents: { ...defaultCdeventsConfig(), backoff: { initialMs: 10, factor: 1, maxMs: 10, maxAttempts: 1 }, deadlineMs: 5000, delivery: false },
    });
    ns = unique('egress');
  });

  afterAll(async () => {
    await hub?.close();
    await new Promise((r) => hostile.close(r));
  });

  it('shows a cluster run that met the server as a short reason, never its body', async () => {
    const registry = new RegistryClient();
    const host = harnessEnv().registry.host;
    const moduleUrl = `oci://${host}/${unique('modules/greeter')}`;
    await pushModule(registry, moduleUrl, GREETER_MODULE_DIR, defaultPushModuleOptions('1.0.0'));
    const repo = `oci://${host}/${unique('projects/egress')}`;
    await pushProject(registry, repo, greeterProjectFiles(moduleUrl, ns, { cache: false, shout: false }));
    const cluster = await hub.call('POST', '/api/v1/clusters', { body: { name: 'poser', mode: 'push', endpoint: { server: `http://${base}` }, credentials: { token: 't0ken' } } });
    expect(cluster.status).toBe(201);
    expect(cluster.body.status.reachable).toBe(true);
    const created = await hub.call('POST', '/api/v1/projects', {
      body: { name: 'posed', namespace: ns, serviceAccountName: 'deployer', source: { repository: repo, tag: 'latest' }, targets: { names: ['poser'] } },
    });
    expect(created.status).toBe(201);
    const run = await eventually('a failed run', async () => {
      const runs = (await hub.call('GET', '/api/v1/projects/posed/targets/poser/runs')).body.items;
      return runs?.find((r: { result: string }) => r.result === 'Failed');
    }, 120_000);
    expect(run.error).toContain('500: the answer is not a Kubernetes Status (body not shown)');
    for (const path of ['/api/v1/projects/posed/targets/poser/runs', '/api/v1/projects/posed/targets/poser', '/api/v1/projects/posed', '/api/v1/projects/posed/events?limit=100', '/api/v1/clusters/poser']) {
      const res = await hub.call('GET', path);
      expect([path, res.status]).toEqual([path, 200]);
      expect([path, res.text.includes(MARKER)]).toEqual([path, false]);
    }
  });

  it('shows a registry answer as a short reason, never its body', async () => {
    const created = await hub.call('POST', '/api/v1/projects', { body: { name: 'from-poser', namespace: ns, source: { repository: `oci://${base}/app`, tag: 'latest' }, targets: { names: ['nowhere'] } } });
    expect(created.status).toBe(201);
    const events = await eventually('the source error', async () => {
      const res = await hub.call('GET', '/api/v1/projects/from-poser/events?limit=100');
      return res.text.includes('SourceResolveFailed') ? res : undefined;
    }, 60_000);
    expect(events.text).toContain('manifests/latest: 500: the answer is not a registry error (body not shown)');
    expect(events.text).not.toContain(MARKER);
    expect((await hub.call('GET', '/api/v1/projects/from-poser')).text).not.toContain(MARKER);
  });

  it('shows a sink answer as its status only, never its body', async () => {
    const created = await hub.call('POST', '/api/v1/projects', { body: { name: 'sunk', namespace: ns, source: { repository: `oci://${base}/sunk` }, targets: { names: ['nowhere'] }, cdeventsSink: `http://${base}/events` } });
    expect(created.status).toBe(201);
    const delivery = hub.app.get(CdeventsDelivery);
    const failed = await eventually('the failed delivery', async () => {
      await delivery.deliverDue();
      const items = (await hub.call('GET', '/api/v1/projects/sunk/deliveries')).body.items as Array<{ state: string }>;
      return items.find((d) => d.state === 'failed');
    });
    expect(JSON.stringify(failed)).toContain(`POST http://${base}/events: HTTP 500`);
    const res = await hub.call('GET', '/api/v1/projects/sunk/deliveries');
    expect(res.text).not.toContain(MARKER);
  });
});
