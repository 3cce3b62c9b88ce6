import { DataSource } from 'typeorm';
import { startTestHub, type TestHub } from '../../test/hub';

// Each write below spans several tables. A trigger makes PostgreSQL itself
// refuse one statement in the middle of it; afterwards the tables must hold
// exactly what they held before: nothing half-written, nothing to clean by hand.

const source = { repository: 'oci://127.0.0.1:5000/acme/atomic' };
const TABLES = ['clusters', 'projects', 'targets', 'credentials', 'events'] as const;

describe('writes spanning tables are atomic on the harness PostgreSQL', () => {
  let hub: TestHub;
  let ds: DataSource;

  /** Every row of every table these writes touch. */
  const snapshot = async () => {
    const out: Record<string, unknown> = {};
    for (const t of TABLES) out[t] = await ds.query(`SELECT * FROM ${t} ORDER BY id`);
    return JSON.parse(JSON.stringify(out)) as Record<string, unknown[]>;
  };

  /** Makes `op` on `table` fail inside the database for the duration of `fn`. */
  const failing = async <T>(op: 'INSERT' | 'UPDATE' | 'DELETE', table: string, fn: () => Promise<T>): Promise<T> => {
    await ds.query(`CREATE TRIGGER test_injected_failure BEFORE ${op} ON ${table} FOR EACH ROW EXECUTE FUNCTION test_injected_failure()`);
    try {
      return await fn();
    } finally {
      await ds.query(`DROP TRIGGER test_injected_failure ON ${table}`);
    }
  };

  beforeAll(async () => {
    hub = await startTestHub('postgres');
    ds = hub.app.get(DataSource);
    await ds.query(`CREATE FUNCTION test_injected_failure() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'injected failure: % on %', TG_OP, TG_TABLE_NAME; END $$`);
    for (const [name, group] of [['eu-1', 'production'], ['us-1', 'production']]) {
      expect((await hub.call('POST', '/api/v1/clusters', { body: { name, group, labels: { region: name.slice(0, 2) }, mode: 'agent' } })).status).toBe(201);
    }
    const res = await hub.call('POST', '/api/v1/projects', {
      body: { name: 'kept', namespace: 'kept', source, targets: { groups: ['production'] }, registryCredentials: { username: 'bot', password: 'pw-1' } },
    });
    expect(res.status).toBe(201);
  });
  afterAll(() => hub?.close());

  it('creating a Project: credential, Project and Created event vanish when its Targets cannot be written', async () => {
    const before = await snapshot();
    const res = await failing('INSERT', 'targets', () =>
      hub.call('POST', '/api/v1/projects', {
        body: { name: 'half', namespace: 'half', source, targets: { groups: ['production'] }, registryCredentials: { username: 'bot', password: 'pw-2' } },
      }),
    );
    expect(res.status).toBe(500);
    expect(hub.logs.some((l) => l.includes('injected failure: INSERT on targets'))).toBe(true);
    expect(await snapshot()).toEqual(before);
    expect((await hub.call('GET', '/api/v1/projects/half')).status).toBe(404);
    // and without the failure the same request goes through
    expect((await hub.call('POST', '/api/v1/projects', { body: { name: 'half', namespace: 'half', source, targets: { groups: ['production'] } } })).status).toBe(201);
    expect((await hub.call('DELETE', '/api/v1/projects/half?instances=orphan')).status).toBeLessThan(300);
  });

  it('registering a push cluster: cluster and credential vanish when its Targets cannot be written', async () => {
    const before = await snapshot();
    const res = await failing('INSERT', 'targets', () =>
      hub.call('POST', '/api/v1/clusters', {
        body: { name: 'eu-2', group: 'production', mode: 'push', endpoint: { server: 'https://127.0.0.1:1' }, credentials: { token: 'tok-1' } },
      }),
    );
    expect(res.status).toBe(500);
    expect(await snapshot()).toEqual(before);
  });

  it('relabelling a cluster: labels and Targets stay when the TargetRemoved event cannot be written', async () => {
    // a merge patch: groups null drops the group, so the label selector alone decides
    await hub.call('PATCH', '/api/v1/projects/kept', { body: { targets: { groups: null, labelSelector: { matchLabels: { region: 'eu' } } } } });
    const before = await snapshot();
    const res = await failing('INSERT', 'events', () => hub.call('PATCH', '/api/v1/clusters/eu-1', { body: { labels: { region: 'ap' } } }));
    expect(res.status).toBe(500);
    expect(await snapshot()).toEqual(before);
    expect((await hub.call('GET', '/api/v1/clusters/eu-1')).body.labels).toEqual({ region: 'eu' });
  });

  it('changing a Project: new credentials, generation and selector stay unwritten when the event cannot be written', async () => {
    const before = await snapshot();
    const res = await failing('INSERT', 'events', () =>
      hub.call('PATCH', '/api/v1/projects/kept', { body: { targets: { groups: ['production'] }, registryCredentials: { username: 'bot', password: 'pw-3' } } }),
    );
    expect(res.status).toBe(500);
    expect(await snapshot()).toEqual(before);
  });

  it('deleting a Project (orphan): the Project stays when its credential cannot be deleted', async () => {
    const before = await snapshot();
    const res = await failing('DELETE', 'credentials', () => hub.call('DELETE', '/api/v1/projects/kept?instances=orphan'));
    expect(res.status).toBe(500);
    expect(await snapshot()).toEqual(before);
    expect((await hub.call('GET', '/api/v1/projects/kept')).status).toBe(200);
  });

  it('deleting a cluster: cluster and Targets stay when its credential cannot be deleted', async () => {
    const created = await hub.call('POST', '/api/v1/clusters', {
      body: { name: 'eu-3', group: 'production', labels: { region: 'eu' }, mode: 'push', endpoint: { server: 'https://127.0.0.1:1' }, credentials: { token: 'tok-2' } },
    });
    expect(created.status).toBe(201);
    const before = await snapshot();
    const res = await failing('DELETE', 'credentials', () => hub.call('DELETE', '/api/v1/clusters/eu-3?force=true'));
    expect(res.status).toBe(500);
    expect(await snapshot()).toEqual(before);
  });
});
