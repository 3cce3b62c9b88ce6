import { startTestHub, type TestHub } from '../../test/hub';

// The selector that held the hub's event loop: `k in (a`, then `gaps` times two
// spaces and a comma, then a tab and ")". Under the old validation regex each
// two more gaps cost about seven times as long (17 gaps took 8 s); at 40 a
// request would never end, and since the hub answers from this same process,
// neither would this suite.
const GAPS = 40;
const attack = (gaps: number): string => `k in (a${'  ,'.repeat(gaps)}\t)`;
const ROUTES = ['/api/v1/clusters', '/api/v1/projects/web/targets', '/api/v1/fleet/matrix'];
// the tab stops reading: the message names it and where it stands
const PROBLEM = `labelSelector: at character ${attack(GAPS).length - 1}: expected a value of letters, digits, "-", "_" or "." followed by "," or ")", found "\\t"`;

describe('label selector that backtracked the validation regex', () => {
  let hub: TestHub;
  let viewer: string;
  beforeAll(async () => {
    hub = await startTestHub('postgres', { anonymousViewer: true });
    expect((await hub.call('POST', '/api/v1/clusters', { body: { name: 'eu-1', group: 'production', labels: { k: 'a' }, mode: 'agent' } })).status).toBe(201);
    const source = { repository: 'oci://127.0.0.1:5000/acme/web' };
    expect((await hub.call('POST', '/api/v1/projects', { body: { name: 'web', namespace: 'apps', source, targets: { groups: ['production'] } } })).status).toBe(201);
    viewer = (await hub.call('POST', '/api/v1/tokens', { body: { name: 'view', role: 'viewer' } })).body.token;
  });
  afterAll(() => hub?.close());

  it.each(ROUTES)('%s refuses it at once with the position, and /healthz answers meanwhile', async (route) => {
    const url = `${route}?labelSelector=${encodeURIComponent(attack(GAPS))}`;
    const [asViewer, asAnonymous, health] = await Promise.all([
      hub.call('GET', url, { token: viewer }),
      hub.call('GET', url, { token: null }),
      fetch(`${hub.url}/healthz`),
    ]);
    expect(asViewer.status).toBe(400);
    expect(asViewer.body.problems).toEqual([PROBLEM]);
    expect(asAnonymous.status).toBe(400);
    expect(asAnonymous.body.problems).toEqual([PROBLEM]);
    expect(health.status).toBe(200);
  });

  it.each(ROUTES)('%s still reads the same selector with a space for the tab', async (route) => {
    const res = await hub.call('GET', `${route}?labelSelector=${encodeURIComponent(attack(GAPS).replace('\t', ' '))}`, { token: viewer });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).toContain('eu-1');
  });
});
