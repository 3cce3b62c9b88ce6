import { DataSource } from 'typeorm';
import { RunEntity, TargetEntity } from '../database/entities';
import { DATABASE_KINDS, startTestHub, type TestHub } from '../../test/hub';

const PASSWORD = 'registry-password-value-42';
const source = { repository: 'oci://127.0.0.1:5000/acme/platform' };
const names = (page: { items: Array<{ name?: string; cluster?: string }> }) => page.items.map((i) => i.name ?? i.cluster);

describe.each(DATABASE_KINDS)('projects API on %s', (_label, kind) => {
  let hub: TestHub;
  let viewer: string;
  beforeAll(async () => {
    hub = await startTestHub(kind);
    viewer = (await hub.call('POST', '/api/v1/tokens', { body: { name: 'view', role: 'viewer' } })).body.token;
    for (const [name, group, labels] of [
      ['eu-1', 'production', { region: 'eu', tier: 'gold' }],
      ['us-1', 'production', { region: 'us' }],
      ['stage-1', 'staging', { region: 'eu' }],
    ] as const) {
      expect((await hub.call('POST', '/api/v1/clusters', { body: { name, group, labels, mode: 'agent' } })).status).toBe(201);
    }
  });
  afterAll(() => hub?.close());

  it('creates a Project with defaults and one Target per matching cluster', async () => {
    const res = await hub.call('POST', '/api/v1/projects', {
      body: { name: 'platform', namespace: 'flotilla-system', source, targets: { groups: ['staging'], labelSelector: { matchLabels: { tier: 'gold' } } }, registryCredentials: { username: 'bot', password: PASSWORD } },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'platform',
      namespace: 'flotilla-system',
      source: { repository: source.repository, tag: 'latest', path: 'project.cue' },
      serviceAccountName: 'platform',
      rollout: { groups: [] },
      interval: '10m',
      suspend: false,
      annotations: {},
      registryCredentials: { kind: 'basic', fingerprint: expect.stringMatching(/^hmac:[0-9a-f]{16}$/) },
      generation: 1,
      status: { targets: 2, ready: 0, phases: { Pending: 2 }, deleting: false },
    });
    expect(res.text).not.toContain(PASSWORD);
    const targets = await hub.call('GET', '/api/v1/projects/platform/targets', { token: viewer });
    expect(names(targets.body)).toEqual(expect.arrayContaining(['eu-1', 'stage-1']));
    expect(targets.body.total).toBe(2);
    const byGroup = await hub.call('GET', '/api/v1/projects/platform/targets?group=staging');
    expect(names(byGroup.body)).toEqual(['stage-1']);
    const byLabel = await hub.call('GET', `/api/v1/projects/platform/targets?labelSelector=${encodeURIComponent('tier=gold')}&phase=Pending`);
    expect(names(byLabel.body)).toEqual(['eu-1']);
    expect((await hub.call('GET', '/api/v1/projects/platform/targets?phase=Ready')).body.total).toBe(0);
    expect((await hub.call('GET', '/api/v1/projects/platform/targets?labelSelector=%3D%3D')).status).toBe(400);
    expect(targets.body.items[0]).toMatchObject({ phase: 'Pending', generation: 1, observedGeneration: null, lastAppliedRevision: null, attempt: 0 });
  });

  it('lists every problem of a bad Project in one 400', async () => {
    const res = await hub.call('POST', '/api/v1/projects', {
      body: {
        name: 'Bad',
        source: { repository: 'https://x/y', tag: 'no tags!', path: '../etc/passwd' },
        targets: { names: ['UPPER'], labelSelector: { matchExpressions: [{ key: 'k', operator: 'In' }, { key: 'bad key', operator: 'Exists', values: ['x'] }] } },
        interval: '5s',
        rollout: { groups: ['a', 'a'] },
        registryCredentials: { username: 'u' },
        annotations: { ok: 1 },
        cdeventsSink: 'nope',
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^name: must be a DNS label/),
        'namespace: required',
        'source.repository: must be oci://host[:port]/path with a lowercase repository path',
        expect.stringMatching(/^source.tag: must be an OCI tag/),
        'source.path: must be a relative path to a .cue file, without ".."',
        expect.stringMatching(/^targets.names: each must be a DNS label/),
        'rollout.groups: must not repeat a group',
        'annotations: value of "ok" must be a string',
        'cdeventsSink: must be an http(s) URL',
        'interval: must be between 10s and 168h',
        'targets.labelSelector.matchExpressions[0].values: In needs at least one value',
        expect.stringMatching(/^targets.labelSelector.matchExpressions\[1\].key: key "bad key"/),
        'targets.labelSelector.matchExpressions[1].values: Exists takes no values',
        'registryCredentials: username and password go together',
      ]),
    );
    expect(res.body.problems).toHaveLength(14);
  });

  it('says plainly that a Target on an agent cluster waits for its agent', async () => {
    const t = await hub.call('GET', '/api/v1/projects/platform/targets/stage-1');
    expect(t.body).toMatchObject({ phase: 'Pending', stale: true, staleSince: null });
    expect(t.body.conditions).toEqual([
      expect.objectContaining({ type: 'Ready', status: 'Unknown', reason: 'AgentDisconnected', message: 'the agent of cluster stage-1 has not connected yet' }),
    ]);
  });

  it('refuses a duplicate name with 409 and answers 404 for unknown Projects and Targets', async () => {
    expect((await hub.call('POST', '/api/v1/projects', { body: { name: 'platform', namespace: 'x', source } })).status).toBe(409);
    for (const path of ['/api/v1/projects/nope', '/api/v1/projects/nope/targets', '/api/v1/projects/platform/targets/us-1', '/api/v1/projects/nope/events']) {
      expect([path, (await hub.call('GET', path)).status]).toEqual([path, 404]);
    }
  });

  it('bumps the generation on spec changes only, and Targets follow selector changes', async () => {
    const same = await hub.call('PATCH', '/api/v1/projects/platform', { body: { interval: '10m' } });
    expect(same.body.generation).toBe(1);
    const res = await hub.call('PATCH', '/api/v1/projects/platform', { body: { source: { tag: 'v2' }, targets: { names: ['us-1'], groups: null, labelSelector: null }, interval: '1h30m' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ generation: 2, interval: '1h30m', source: { tag: 'v2' }, status: { targets: 1 } });
    const t = await hub.call('GET', '/api/v1/projects/platform/targets/us-1');
    expect(t.body).toMatchObject({ cluster: 'us-1', clusterGroup: 'production', generation: 2 });
    expect((await hub.call('PATCH', '/api/v1/projects/platform', { token: viewer, body: { interval: '1m' } })).status).toBe(403);
  });

  it('takes PATCH as a JSON merge patch: nested fields left out keep their value, null puts back the default', async () => {
    const create = { name: 'merge', namespace: 'apps', source: { ...source, tag: 'live', path: 'deploy/project.cue' }, annotations: { a: '1', b: '2' }, targets: { names: ['eu-1'], groups: ['staging'] }, cdeventsSink: 'http://127.0.0.1:9/events' };
    expect((await hub.call('POST', '/api/v1/projects', { body: create })).status).toBe(201);
    // the journey that broke: a new repository must not reset the tag
    const moved = await hub.call('PATCH', '/api/v1/projects/merge', { body: { source: { repository: 'oci://127.0.0.1:5000/acme/other' } } });
    expect(moved.status).toBe(200);
    expect(moved.body.source).toEqual({ repository: 'oci://127.0.0.1:5000/acme/other', tag: 'live', path: 'deploy/project.cue' });
    // application/merge-patch+json is read like application/json
    const res = await fetch(`${hub.url}/api/v1/projects/merge`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${hub.adminToken}`, 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ annotations: { a: null, c: '3' }, targets: { groups: null }, source: { path: null }, cdeventsSink: null, serviceAccountName: 'deployer' }),
    });
    expect(res.status).toBe(200);
    const patched = (await res.json()) as Record<string, unknown>;
    expect(patched).toMatchObject({
      annotations: { b: '2', c: '3' },
      targets: { names: ['eu-1'] },
      source: { tag: 'live', path: 'project.cue' },
      cdeventsSink: null,
      serviceAccountName: 'deployer',
      generation: 3,
      status: { targets: 1 },
    });
    expect(patched.annotations).not.toHaveProperty('a');
    expect(patched.targets).not.toHaveProperty('groups');
    const back = await hub.call('PATCH', '/api/v1/projects/merge', { body: { serviceAccountName: null, interval: null } });
    expect(back.body).toMatchObject({ serviceAccountName: 'merge', interval: '10m' });
    // fields that cannot be removed, and bad values inside a patch, are still 400s
    const bad = await hub.call('PATCH', '/api/v1/projects/merge', { body: { namespace: null, source: { repository: null, tag: 'no spaces' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.problems).toEqual(expect.arrayContaining(['namespace: must not be null', 'source.repository: must not be null']));
    expect((await hub.call('DELETE', '/api/v1/projects/merge?instances=orphan')).status).toBe(200);
  });

  it('adds and removes Targets as cluster labels and groups change, and as clusters come', async () => {
    await hub.call('POST', '/api/v1/projects', { body: { name: 'gold', namespace: 'apps', source, targets: { labelSelector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold'] }] } } } });
    const targetsOf = async () => names((await hub.call('GET', '/api/v1/projects/gold/targets')).body).sort();
    expect(await targetsOf()).toEqual(['eu-1']);
    await hub.call('PATCH', '/api/v1/clusters/us-1', { body: { labels: { region: 'us', tier: 'gold' } } });
    expect(await targetsOf()).toEqual(['eu-1', 'us-1']);
    await hub.call('PATCH', '/api/v1/clusters/eu-1', { body: { labels: { region: 'eu' } } });
    expect(await targetsOf()).toEqual(['us-1']);
    await hub.call('POST', '/api/v1/clusters', { body: { name: 'new-gold', mode: 'agent', labels: { tier: 'gold' } } });
    expect(await targetsOf()).toEqual(['new-gold', 'us-1']);
    const events = await hub.call('GET', '/api/v1/projects/gold/events?limit=100');
    expect(events.body.items.map((e: { reason: string; cluster: string | null }) => `${e.reason}:${e.cluster}`)).toEqual(
      expect.arrayContaining(['TargetAdded:us-1', 'TargetRemoved:eu-1', 'TargetAdded:new-gold', 'Created:null']),
    );
    // a cluster with Targets cannot be deleted unless forced
    const refused = await hub.call('DELETE', '/api/v1/clusters/new-gold');
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain('Projects: gold');
    expect((await hub.call('DELETE', '/api/v1/clusters/new-gold?force=true')).status).toBe(204);
    expect(await targetsOf()).toEqual(['us-1']);
  });

  it('reconciles on request, suspends and resumes', async () => {
    const all = await hub.call('POST', '/api/v1/projects/gold/reconcile');
    expect(all.status).toBe(202);
    // the tag is resolved first; nothing serves this repository, so the answer says why it could not be
    expect(all.body).toEqual({ requested: 1, revision: null, sourceError: expect.stringContaining('cannot resolve oci://127.0.0.1:5000/acme/platform:latest') });
    expect((await hub.call('POST', '/api/v1/projects/gold/reconcile?cluster=us-1')).body).toMatchObject({ requested: 1 });
    expect((await hub.call('POST', '/api/v1/projects/gold/reconcile?cluster=eu-1')).status).toBe(404);
    expect((await hub.call('POST', '/api/v1/projects/gold/reconcile', { token: viewer })).status).toBe(403);
    const suspended = await hub.call('POST', '/api/v1/projects/gold/suspend');
    expect(suspended.body).toMatchObject({ suspend: true, status: { phases: { Suspended: 1 } } });
    expect((await hub.call('POST', '/api/v1/projects/gold/reconcile')).status).toBe(409);
    expect((await hub.call('GET', '/api/v1/projects?suspended=true')).body.items.map((p: { name: string }) => p.name)).toEqual(['gold']);
    const resumed = await hub.call('POST', '/api/v1/projects/gold/resume');
    expect(resumed.body).toMatchObject({ suspend: false, status: { phases: { Pending: 1 } } });
    const events = await hub.call('GET', '/api/v1/projects/gold/events?limit=3');
    expect(events.body.items.map((e: { reason: string }) => e.reason)).toEqual(['Resumed', 'Suspended', 'ReconcileRequested']);
    expect(events.body.continue).toEqual(expect.any(String));
  });

  it('pages the run history of a Target newest first by a continue token: exact to the microsecond, stable while runs are added', async () => {
    const ds = hub.app.get(DataSource);
    const target = await ds.getRepository(TargetEntity).findOneOrFail({ where: { cluster: { name: 'us-1' }, project: { name: 'gold' } } });
    // three runs in the same millisecond, told apart only by microseconds, and two older ones
    await ds.query(
      `INSERT INTO runs (target_id, generation, revision, started_at, result, instances)
       SELECT CAST($1 AS uuid), 1, 'v' || i || '@sha256:' || repeat('a', 64), timestamptz '2026-01-01 00:00:00.123000+00' + i * interval '1 microsecond', 'Succeeded', CAST('[]' AS jsonb)
       FROM generate_series(2, 4) i
       UNION ALL
       SELECT CAST($1 AS uuid), 1, 'v' || i || '@sha256:' || repeat('a', 64), timestamptz '2025-12-31 00:00:00+00' + i * interval '1 minute', 'Succeeded', CAST('[]' AS jsonb)
       FROM generate_series(0, 1) i`,
      [target.id],
    );
    const revisions = (body: { items: Array<{ revision: string }> }) => body.items.map((r) => r.revision.split('@')[0]);
    const first = await hub.call('GET', '/api/v1/projects/gold/targets/us-1/runs?limit=2');
    expect(first.body).toMatchObject({ limit: 2, continue: expect.any(String) });
    expect(revisions(first.body)).toEqual(['v4', 'v3']);
    // a newer run written meanwhile does not shift the next page
    await ds.getRepository(RunEntity).insert({ targetId: target.id, generation: 1, revision: `v9@sha256:${'a'.repeat(64)}`, startedAt: new Date(Date.UTC(2026, 5, 1)), result: 'Succeeded', instances: [], error: null });
    const second = await hub.call('GET', `/api/v1/projects/gold/targets/us-1/runs?limit=2&continue=${first.body.continue}`);
    expect(revisions(second.body)).toEqual(['v2', 'v1']);
    const last = await hub.call('GET', `/api/v1/projects/gold/targets/us-1/runs?limit=2&continue=${second.body.continue}`);
    expect(revisions(last.body)).toEqual(['v0']);
    expect(last.body.continue).toBeNull();
    expect(first.body.continue).toMatch(/^\d+_[0-9a-f-]{36}$/);
    const forged = await hub.call('GET', '/api/v1/projects/gold/targets/us-1/runs?continue=yesterday');
    expect(forged.status).toBe(400);
    expect(forged.body.problems).toEqual(['continue: must be the continue token of a previous page']);
  });

  it('deletes with instances=orphan at once, and with instances=delete marks the Project as deleting', async () => {
    const deleting = await hub.call('DELETE', '/api/v1/projects/gold');
    expect(deleting.status).toBe(202);
    expect(deleting.body).toEqual({ state: 'deleting' });
    expect((await hub.call('GET', '/api/v1/projects/gold')).body.status).toMatchObject({ deleting: true, phases: { Deleting: 1 } });
    expect((await hub.call('PATCH', '/api/v1/projects/gold', { body: { interval: '1m' } })).status).toBe(409);
    expect((await hub.call('DELETE', '/api/v1/projects/gold?instances=maybe')).status).toBe(400);
    const orphaned = await hub.call('DELETE', '/api/v1/projects/gold?instances=orphan');
    expect(orphaned.status).toBe(200);
    expect((await hub.call('GET', '/api/v1/projects/gold')).status).toBe(404);
  });

  it('lists Projects with their status and never shows or logs registry credentials', async () => {
    const list = await hub.call('GET', '/api/v1/projects', { token: viewer });
    expect(list.status).toBe(200);
    expect(names(list.body)).toEqual(['platform']);
    for (const text of [...hub.responses, ...hub.logs]) expect(text).not.toContain(PASSWORD);
  });
});

describe.each(DATABASE_KINDS)('concurrent writes on %s', (_label, kind) => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub(kind);
  });
  afterAll(() => hub?.close());

  it('serves 30 parallel registrations and Project creations without losing or mixing any', async () => {
    const clusters = Array.from({ length: 15 }, (_, i) => hub.call('POST', '/api/v1/clusters', { body: { name: `c${i}`, mode: 'agent', labels: { n: String(i % 3) } } }));
    const projects = Array.from({ length: 15 }, (_, i) =>
      hub.call('POST', '/api/v1/projects', { body: { name: `p${i}`, namespace: 'ns', source, targets: { labelSelector: { matchLabels: { n: String(i % 3) } } } } }),
    );
    const results = await Promise.all([...clusters, ...projects]);
    expect(results.map((r) => r.status)).toEqual(Array(30).fill(201));
    // however the writes interleaved, membership converges: project pK targets the clusters with n = K mod 3
    for (let i = 0; i < 15; i++) {
      const t = await hub.call('GET', `/api/v1/projects/p${i}/targets`);
      const expected = Array.from({ length: 15 }, (_, c) => c).filter((c) => c % 3 === i % 3).map((c) => `c${c}`).sort();
      expect(t.body.items.map((x: { cluster: string }) => x.cluster).sort()).toEqual(expected);
    }
  });
});
