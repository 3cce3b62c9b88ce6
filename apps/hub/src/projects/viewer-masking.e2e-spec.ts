import { DataSource } from 'typeorm';
import { startTestHub, type TestHub } from '../../test/hub';
import { SECRET_ANNOTATIONS_KEY } from './viewer-masking';

const SINK = 'https://sink.example.com/hooks/T000/B000/s3cr3t-path?token=s3cr3t-query';

describe('what viewers see of a Project', () => {
  let hub: TestHub;
  let viewer: string;
  let operator: string;
  beforeAll(async () => {
    hub = await startTestHub('postgres');
    expect((await hub.call('POST', '/api/v1/clusters', { body: { name: 'eu-1', mode: 'agent' } })).status).toBe(201);
    const create = await hub.call('POST', '/api/v1/projects', {
      body: {
        name: 'web',
        namespace: 'apps',
        source: { repository: 'oci://127.0.0.1:5000/acme/web' },
        annotations: { [SECRET_ANNOTATIONS_KEY]: 'runtime.timoni.sh/DB_PASSWORD', 'runtime.timoni.sh/DB_PASSWORD': 'hunter2-db-password', 'runtime.timoni.sh/REGION': 'eu' },
        cdeventsSink: SINK,
        targets: { names: ['eu-1'] },
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

  it('gives viewers the reason, step and object of a failure but not the words a remote server answered', async () => {
    // what a run against a server that answers with its own words records (the engine quotes registry and API server answers)
    const leak = 'registry said: 500 internal error, upstream token=s3cr3t-remote-answer';
    const error = { reason: 'ArtifactFailed', step: 'fetch', message: leak, retryable: true, object: 'Deployment/apps/web' };
    const db = hub.app.get(DataSource);
    await db.query(
      `INSERT INTO runs (target_id, generation, trigger, started_at, finished_at, result, error, errors)
       SELECT t.id, 1, 'Manual', now(), now(), 'Failed', $1, $2::jsonb FROM targets t JOIN projects p ON p.id = t.project_id WHERE p.name = 'web'`,
      [leak, JSON.stringify([error])],
    );
    await db.query(`UPDATE targets SET conditions = $1::jsonb`, [
      JSON.stringify([{ type: 'Stalled', status: 'True', reason: 'ArtifactFailed', message: leak, lastTransitionTime: '2026-01-01T00:00:00.000Z' }]),
    ]);
    await db.query(`INSERT INTO events (project_id, cluster_name, type, reason, message) SELECT id, 'eu-1', 'Warning', 'ReconcileFailed', $1 FROM projects WHERE name = 'web'`, [leak]);

    const runs = await hub.call('GET', '/api/v1/projects/web/targets/eu-1/runs', { token: viewer });
    expect(runs.status).toBe(200);
    expect(runs.body.items[0]).toMatchObject({ result: 'Failed', error: 'ArtifactFailed at step fetch (Deployment/apps/web); details are shown to operators', errors: [{ ...error, message: 'ArtifactFailed at step fetch (Deployment/apps/web); details are shown to operators' }] });
    const target = await hub.call('GET', '/api/v1/projects/web/targets/eu-1', { token: viewer });
    const stalled = (t: { conditions: Array<{ type: string }> }) => t.conditions.find((c) => c.type === 'Stalled');
    expect(stalled(target.body)).toMatchObject({ reason: 'ArtifactFailed', message: 'ArtifactFailed; details are shown to operators' });
    const targets = await hub.call('GET', '/api/v1/projects/web/targets', { token: viewer });
    const events = await hub.call('GET', '/api/v1/projects/web/events', { token: viewer });
    expect(events.body.items.find((e: { type: string }) => e.type === 'Warning').message).toBe('ReconcileFailed; details are shown to operators');
    for (const res of [runs, target, targets, events]) expect(res.text).not.toContain('s3cr3t-remote-answer');

    // an operator needs the words to act on them
    expect((await hub.call('GET', '/api/v1/projects/web/targets/eu-1/runs', { token: operator })).body.items[0].error).toBe(leak);
    expect(stalled((await hub.call('GET', '/api/v1/projects/web/targets/eu-1', { token: operator })).body)).toMatchObject({ message: leak });
  });
});
