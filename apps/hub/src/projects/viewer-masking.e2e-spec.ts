import { startTestHub, type TestHub } from '../../test/hub';
import { SECRET_ANNOTATIONS_KEY } from './viewer-masking';

const SINK = 'https://sink.example.com/hooks/T000/B000/s3cr3t-path?token=s3cr3t-query';

describe('what viewers see of a Project', () => {
  let hub: TestHub;
  let viewer: string;
  let operator: string;
  beforeAll(async () => {
    hub = await startTestHub('postgres');
    const create = await hub.call('POST', '/api/v1/projects', {
      body: {
        name: 'web',
        namespace: 'apps',
        source: { repository: 'oci://127.0.0.1:5000/acme/web' },
        annotations: { [SECRET_ANNOTATIONS_KEY]: 'runtime.timoni.sh/DB_PASSWORD', 'runtime.timoni.sh/DB_PASSWORD': 'hunter2-db-password', 'runtime.timoni.sh/REGION': 'eu' },
        cdeventsSink: SINK,
      },
    });
    expect(create.status).toBe(201);
    viewer = (await hub.call('POST', '/api/v1/tokens', { body: { name: 'wall', role: 'viewer' } })).body.token;
    operator = (await hub.call('POST', '/api/v1/tokens', { body: { name: 'ci', role: 'operator' } })).body.token;
  });
  afterAll(() => hub?.close());

  it('hides the sink beyond its host and the values of secret annotations, in the Project and in the list', async () => {
    const one = await hub.call('GET', '/api/v1/projects/web', { token: viewer });
    const list = await hub.call('GET', '/api/v1/projects', { token: viewer });
    expect(one.status).toBe(200);
    expect(one.body.cdeventsSink).toBe('https://sink.example.com/…');
    expect(one.body.annotations).toEqual({ [SECRET_ANNOTATIONS_KEY]: 'runtime.timoni.sh/DB_PASSWORD', 'runtime.timoni.sh/DB_PASSWORD': '(hidden)', 'runtime.timoni.sh/REGION': 'eu' });
    expect(list.body.items[0]).toEqual(one.body);
    for (const text of [one.text, list.text]) {
      expect(text).not.toContain('s3cr3t');
      expect(text).not.toContain('hunter2');
    }
  });

  it('shows operators and admins the Project whole', async () => {
    for (const token of [operator, hub.adminToken]) {
      const one = await hub.call('GET', '/api/v1/projects/web', { token });
      expect(one.body.cdeventsSink).toBe(SINK);
      expect(one.body.annotations['runtime.timoni.sh/DB_PASSWORD']).toBe('hunter2-db-password');
    }
  });
});
