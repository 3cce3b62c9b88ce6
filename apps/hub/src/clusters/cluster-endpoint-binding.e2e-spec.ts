import { DataSource } from 'typeorm';
import { harnessEnv } from '../../../../test/harness/env';
import { startTestHub, type TestHub } from '../../test/hub';
import { type RecordingListener, startRecordingListener } from '../../../../test/harness/recording-listener';
import { AgentCa } from '../agents/agent-ca.service';
import { ClustersService } from './clusters.service';

// An operator who may edit clusters must not be able to collect a cluster's
// token by pointing its endpoint at a server of their own.
describe('a push cluster credential goes only to the server it was given for (harness kube-apiserver)', () => {
  let hub: TestHub;
  let attacker: RecordingListener;
  const kube = () => harnessEnv().kube;
  beforeAll(async () => {
    hub = await startTestHub('postgres');
    attacker = await startRecordingListener((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(req.url === '/version' ? JSON.stringify({ gitVersion: 'v1.0.0-attacker' }) : '{}');
    });
  });
  afterAll(async () => {
    await hub?.close();
    await attacker?.close();
  });

  it('refuses endpoint.server without new credentials, changes nothing, and the stored token never reaches the new server', async () => {
    const created = await hub.call('POST', '/api/v1/clusters', {
      body: { name: 'victim', mode: 'push', endpoint: { server: kube().server, caData: kube().caData }, credentials: { token: kube().admin.token } },
    });
    expect(created.status).toBe(201);
    expect(created.body.status.reachable).toBe(true);
    const fingerprint = created.body.credentials.fingerprint;

    const moved = await hub.call('PATCH', '/api/v1/clusters/victim', { body: { endpoint: { server: attacker.url, insecureSkipTLSVerify: true } } });
    expect(moved.status).toBe(409);
    expect(moved.body.message).toContain('endpoint.server');
    expect(moved.body.message).toContain('send new credentials with it');

    const after = (await hub.call('GET', '/api/v1/clusters/victim')).body;
    expect(after.endpoint).toMatchObject({ server: kube().server, hasCaData: true, insecureSkipTLSVerify: false });
    expect(after.credentials.fingerprint).toBe(fingerprint);

    // the positive signal: a check driven by hand, and the periodic one, finished against the real server with the stored token
    const checked = await hub.call('POST', '/api/v1/clusters/victim/check');
    expect(checked.status).toBe(200);
    expect(checked.body.status).toMatchObject({ reachable: true, version: kube().version, error: null });
    expect(await hub.app.get(ClustersService).checkDue(0, 10)).toContain('victim');
    expect((await hub.call('GET', '/api/v1/clusters/victim')).body.status).toMatchObject({ reachable: true, version: kube().version });
    expect(attacker.requests).toEqual([]);
  });

  it('refuses another CA or skipped verification for the same server without new credentials, and takes the same CA again', async () => {
    const before = (await hub.call('GET', '/api/v1/clusters/victim')).body;
    const skip = await hub.call('PATCH', '/api/v1/clusters/victim', { body: { endpoint: { server: kube().server, insecureSkipTLSVerify: true } } });
    expect(skip.status).toBe(409);
    expect(skip.body.message).toContain('endpoint.insecureSkipTLSVerify');
    // any other certificate than the cluster's own: here the hub's agent CA
    const otherCa = hub.app.get(AgentCa).certPem;
    const ca = await hub.call('PATCH', '/api/v1/clusters/victim', { body: { endpoint: { server: kube().server, caData: otherCa } } });
    expect(ca.status).toBe(409);
    expect(ca.body.message).toContain('endpoint.caData');
    const after = (await hub.call('GET', '/api/v1/clusters/victim')).body;
    expect(after.endpoint).toEqual(before.endpoint);
    expect(after.credentials.fingerprint).toBe(before.credentials.fingerprint);

    const same = await hub.call('PATCH', '/api/v1/clusters/victim', { body: { endpoint: { server: kube().server, caData: kube().caData } } });
    expect(same.status).toBe(200);
    expect(same.body.status).toMatchObject({ reachable: true, version: kube().version });
    expect(attacker.requests).toEqual([]);
  });

  it('a server changed in the database alone gets no credentials: the periodic check records why', async () => {
    const ds = hub.app.get(DataSource);
    await ds.query(`UPDATE clusters SET server = $1, insecure_skip_tls_verify = true WHERE name = 'victim'`, [attacker.url]);
    expect(await hub.app.get(ClustersService).checkDue(0, 10)).toContain('victim');
    const status = (await hub.call('GET', '/api/v1/clusters/victim')).body.status;
    expect(status).toMatchObject({ reachable: false, error: expect.stringContaining('stored credentials: credential') });
    expect(status.error).toContain(`is bound to "cluster-server ${kube().server}"`);
    expect(attacker.requests).toEqual([]);
    await ds.query(`UPDATE clusters SET server = $1, insecure_skip_tls_verify = false WHERE name = 'victim'`, [kube().server]);
  });

  it('moves the endpoint when new credentials come with it: only the new token goes there', async () => {
    const moved = await hub.call('PATCH', '/api/v1/clusters/victim', {
      body: { endpoint: { server: attacker.url, insecureSkipTLSVerify: true }, credentials: { token: 'token-meant-for-the-new-server' } },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.endpoint.server).toBe(attacker.url);
    // the check after the change ran against the new server
    expect(attacker.requests.length).toBeGreaterThan(0);
    expect(new Set(attacker.requests.map((r) => r.authorization))).toEqual(new Set(['Bearer token-meant-for-the-new-server']));
    expect(JSON.stringify(attacker.requests)).not.toContain(kube().admin.token);
  });
});
