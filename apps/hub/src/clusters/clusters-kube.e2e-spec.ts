import { DataSource } from 'typeorm';
import { harnessEnv } from '../../../../test/harness/env';
import { startTestHub, type TestHub } from '../../test/hub';
import { kubeconfigYaml } from '../../test/kubeconfig';
import { ClustersService } from './clusters.service';

// Against the harness's real kube-apiserver: registration checks connectivity with the given credentials.
describe('push clusters against the harness kube-apiserver', () => {
  let hub: TestHub;
  const kube = () => harnessEnv().kube;
  beforeAll(async () => {
    hub = await startTestHub('postgres');
  });
  afterAll(() => hub?.close());

  it('records the server version when registered with a token and the CA', async () => {
    const res = await hub.call('POST', '/api/v1/clusters', {
      body: { name: 'real', mode: 'push', endpoint: { server: kube().server, caData: kube().caData }, credentials: { token: kube().admin.token } },
    });
    expect(res.status).toBe(201);
    expect(res.body.status).toMatchObject({ reachable: true, version: kube().version, error: null, warnings: [] });
    expect(res.body.endpoint).toMatchObject({ server: kube().server, hasCaData: true });
    expect(res.text).not.toContain(kube().admin.token);
  });

  it('records the server version when registered with a client certificate and key', async () => {
    const { certAdmin } = kube();
    const res = await hub.call('POST', '/api/v1/clusters', {
      body: {
        name: 'real-cert',
        mode: 'push',
        endpoint: { server: kube().server, caData: kube().caData },
        credentials: { clientCertificateData: certAdmin.clientCertificateData, clientKeyData: certAdmin.clientKeyData },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.status).toMatchObject({ reachable: true, version: kube().version, error: null });
    expect(res.body.credentials.kind).not.toBe('token');
    expect(res.text).not.toContain('PRIVATE KEY');
  });

  it('does the same from a kubeconfig with base64 CA data', async () => {
    const kubeconfig = kubeconfigYaml({ server: kube().server, caData: kube().caData, token: kube().admin.token });
    const res = await hub.call('POST', '/api/v1/clusters', { body: { name: 'real-kc', mode: 'push', credentials: { kubeconfig } } });
    expect(res.status).toBe(201);
    expect(res.body.status).toMatchObject({ reachable: true, version: kube().version });
  });

  it('registers but reports a rejected token, and recovers after credential rotation', async () => {
    const res = await hub.call('POST', '/api/v1/clusters', {
      body: { name: 'bad-token', mode: 'push', endpoint: { server: kube().server, caData: kube().caData }, credentials: { token: 'not-a-valid-token' } },
    });
    expect(res.status).toBe(201);
    expect(res.body.status).toMatchObject({ reachable: false, version: null, error: expect.stringContaining('answered 401 (credentials rejected)') });
    const fixed = await hub.call('PATCH', '/api/v1/clusters/bad-token', { body: { credentials: { token: kube().admin.token } } });
    expect(fixed.body.status).toMatchObject({ reachable: true, version: kube().version, error: null });
    const again = await hub.call('POST', '/api/v1/clusters/bad-token/check');
    expect(again.status).toBe(200);
    expect(again.body.status.reachable).toBe(true);
  });

  it('refuses an unknown CA unless TLS verification is skipped', async () => {
    const untrusted = await hub.call('POST', '/api/v1/clusters', {
      body: { name: 'no-ca', mode: 'push', endpoint: { server: kube().server }, credentials: { token: kube().admin.token } },
    });
    expect(untrusted.body.status.reachable).toBe(false);
    expect(untrusted.body.status.error).toMatch(/certificate/i);
    const skipped = await hub.call('POST', '/api/v1/clusters', {
      body: { name: 'skip-ca', mode: 'push', endpoint: { server: kube().server, insecureSkipTLSVerify: true }, credentials: { token: kube().admin.token } },
    });
    expect(skipped.body.status).toMatchObject({ reachable: true, version: kube().version });
  });

  it('warns on every registration of an API server that is registered under several names', async () => {
    const real = (await hub.call('GET', '/api/v1/clusters/real')).body;
    expect(real.status.warnings).toEqual([expect.stringContaining('is also registered as "bad-token", "real-cert", "real-kc", "skip-ca"')]);
    const listed = (await hub.call('GET', '/api/v1/clusters')).body.items as Array<{ name: string; status: { warnings: string[] } }>;
    expect(listed.find((c) => c.name === 'real-kc')?.status.warnings).toEqual([expect.stringContaining('"real"')]);
    // a cluster the hub never reached has no identity to compare
    expect(listed.find((c) => c.name === 'no-ca')?.status.warnings).toEqual([]);
  });

  it('checks push clusters again once their interval has passed: reachability, version and lastChecked', async () => {
    const ds = hub.app.get(DataSource);
    const ghost = await hub.call('POST', '/api/v1/clusters', { body: { name: 'gone-later', mode: 'push', endpoint: { server: kube().server, caData: kube().caData }, credentials: { token: kube().admin.token } } });
    expect(ghost.body.status.reachable).toBe(true);
    // gone-later moves to an address where nothing listens (new credentials with it: the stored ones stay bound to the old server), and both were last checked an hour ago
    const moved = await hub.call('PATCH', '/api/v1/clusters/gone-later', { body: { endpoint: { server: 'https://127.0.0.1:1' }, credentials: { token: kube().admin.token } } });
    expect(moved.status).toBe(200);
    await ds.query(`UPDATE clusters SET last_checked_at = now() - interval '1 hour' WHERE name = 'gone-later'`);
    await ds.query(`UPDATE clusters SET last_checked_at = now() - interval '1 hour' WHERE name = 'real'`);
    const before = Date.parse((await hub.call('GET', '/api/v1/clusters/real')).body.status.lastChecked);
    const checks = hub.app.get(ClustersService);
    expect(await checks.checkDue(60_000, 100)).toEqual(expect.arrayContaining(['gone-later', 'real']));
    const real = (await hub.call('GET', '/api/v1/clusters/real')).body;
    expect(real.status).toMatchObject({ reachable: true, version: kube().version, error: null });
    expect(Date.parse(real.status.lastChecked)).toBeGreaterThan(before);
    const gone = (await hub.call('GET', '/api/v1/clusters/gone-later')).body;
    expect(gone.status).toMatchObject({ reachable: false, error: expect.stringContaining('127.0.0.1:1') });
    // checked just now: not due again, on this replica or another
    expect(await checks.checkDue(60_000, 100)).toEqual([]);
    // agent clusters are never checked by the hub
    await hub.call('POST', '/api/v1/clusters', { body: { name: 'an-agent', mode: 'agent' } });
    await ds.query(`UPDATE clusters SET last_checked_at = NULL WHERE name = 'an-agent'`);
    expect(await checks.checkDue(60_000, 100)).toEqual([]);
  });
});
