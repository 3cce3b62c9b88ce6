import { startTestHub, type TestHub } from '../../test/hub';
import { type RecordingListener, startRecordingListener } from '../../../../test/harness/recording-listener';
import { defaultCdeventsConfig } from '../config/cdevents-config';
import { CdeventsDelivery } from '../cdevents/delivery.service';

// A Project's secrets (its CDEvents sink header, its registry credentials)
// never follow a new destination that comes without a new secret.
describe('a Project secret goes only where it was given for (harness PostgreSQL)', () => {
  let hub: TestHub;
  let sink: RecordingListener;
  let attacker: RecordingListener;
  const accept = (_req: unknown, res: { writeHead(s: number): { end(): void } }) => res.writeHead(202).end();
  beforeAll(async () => {
    sink = await startRecordingListener(accept);
    attacker = await startRecordingListener(accept);
    hub = await startTestHub('postgres', { cdevents: { ...defaultCdeventsConfig(), deadlineMs: 5000, delivery: false } });
  });
  afterAll(async () => {
    await hub?.close();
    await sink?.close();
    await attacker?.close();
  });

  const pending = async (name: string) => (await hub.call('GET', `/api/v1/projects/${name}/deliveries?state=pending`)).body.items.length as number;
  /** Delivery passes driven by hand until nothing of `name` is pending. */
  const deliverAll = async (name: string) => {
    for (let i = 0; i < 50 && (await pending(name)) > 0; i++) await hub.app.get(CdeventsDelivery).deliverDue();
    expect(await pending(name)).toBe(0);
  };

  it('refuses a new cdeventsSink without a new header; with one, only the new header goes there', async () => {
    const created = await hub.call('POST', '/api/v1/projects', {
      body: { name: 'sunk', namespace: 'apps', source: { repository: 'oci://127.0.0.1:5000/acme/sunk' }, targets: { names: ['nowhere'] }, cdeventsSink: `${sink.url}/events`, cdeventsSinkHeader: { name: 'X-Api-Key', value: 'key-for-the-real-sink' } },
    });
    expect(created.status).toBe(201);

    const moved = await hub.call('PATCH', '/api/v1/projects/sunk', { body: { cdeventsSink: `${attacker.url}/collect` } });
    expect(moved.status).toBe(409);
    expect(moved.body.message).toContain('cdeventsSink');
    expect(moved.body.message).toContain('send cdeventsSinkHeader with it');
    const after = (await hub.call('GET', '/api/v1/projects/sunk')).body;
    expect(after).toMatchObject({ cdeventsSink: `${sink.url}/events`, cdeventsSinkHeader: 'X-Api-Key', generation: 1 });

    // the positive signal: the created event reached the real sink with its header
    await deliverAll('sunk');
    expect(sink.requests.map((r) => r.headers['x-api-key'])).toEqual(['key-for-the-real-sink']);
    expect(attacker.requests).toEqual([]);

    const withHeader = await hub.call('PATCH', '/api/v1/projects/sunk', { body: { cdeventsSink: `${attacker.url}/collect`, cdeventsSinkHeader: { name: 'X-Api-Key', value: 'key-for-the-new-sink' } } });
    expect(withHeader.status).toBe(200);
    expect(withHeader.body.cdeventsSink).toBe(`${attacker.url}/collect`);
    await deliverAll('sunk');
    expect(attacker.requests.length).toBeGreaterThan(0);
    expect(attacker.requests.map((r) => r.headers['x-api-key'])).toEqual(attacker.requests.map(() => 'key-for-the-new-sink'));
  });

  it('refuses moving the source to another registry host without new registryCredentials', async () => {
    const created = await hub.call('POST', '/api/v1/projects', {
      body: { name: 'private', namespace: 'apps', source: { repository: 'oci://127.0.0.1:5000/acme/private' }, targets: { names: ['nowhere'] }, registryCredentials: { username: 'u', password: 'p' } },
    });
    expect(created.status).toBe(201);
    const fingerprint = created.body.registryCredentials.fingerprint;

    const moved = await hub.call('PATCH', '/api/v1/projects/private', { body: { source: { repository: `oci://${attacker.host}/acme/private` } } });
    expect(moved.status).toBe(409);
    expect(moved.body.message).toContain('source.repository');
    expect(moved.body.message).toContain(`registry host ${attacker.host}`);
    expect(moved.body.message).toContain('send registryCredentials with it');
    expect((await hub.call('GET', '/api/v1/projects/private')).body).toMatchObject({ source: { repository: 'oci://127.0.0.1:5000/acme/private' }, generation: 1 });

    // another repository on the same host keeps the credentials
    const sameHost = await hub.call('PATCH', '/api/v1/projects/private', { body: { source: { repository: 'oci://127.0.0.1:5000/acme/renamed' } } });
    expect(sameHost.status).toBe(200);
    expect(sameHost.body.registryCredentials.fingerprint).toBe(fingerprint);

    const withCredentials = await hub.call('PATCH', '/api/v1/projects/private', { body: { source: { repository: `oci://${attacker.host}/acme/private` }, registryCredentials: { username: 'u2', password: 'p2' } } });
    expect(withCredentials.status).toBe(200);
    expect(withCredentials.body.registryCredentials.fingerprint).not.toBe(fingerprint);
    const dropped = await hub.call('PATCH', '/api/v1/projects/private', { body: { source: { repository: 'oci://127.0.0.1:5000/acme/private' }, registryCredentials: null } });
    expect(dropped.status).toBe(200);
    expect(dropped.body.registryCredentials).toBeNull();
  });
});
