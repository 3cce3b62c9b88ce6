import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestHub, type TestHub } from '../../test/hub';
import { OffsetClock } from '../../test/offset-clock';
import { defaultCdeventsConfig } from '../config/cdevents-config';
import { ProjectsRepository } from '../repositories/projects.repository';
import { WaveAdvance } from '../runs/wave-advance';
import { addFakeClusters, eventually, fastScheduler, RecordingRunner, SettableResolver } from '../../test/scheduler-fixtures';

// Rollout notices on the real hub and PostgreSQL (push runs recorded
// in-process, the soak driven by the hub's clock): every wave transition
// reaches a real HTTP receiver exactly once and in order, as an
// environment.modified CDEvent and as a Slack-compatible body; a webhook
// that fails its first answer gets the same message again; the webhook URL
// is shown to nobody whole; bad input is refused and changes nothing.

jest.setTimeout(120_000);

interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  status: number;
}

/**
 * A real HTTP receiver: CDEvents at /events, the chat webhook at /hooks/…;
 * the webhook's first answer is a 503. A webhook at /down/… never answers.
 */
class Receiver {
  readonly received: Received[] = [];
  /** requests to /down/…, held open */
  readonly hanging: ServerResponse[] = [];
  private server!: Server;
  private webhookAnswers = 0;
  base = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      if ((req.url ?? '').startsWith('/down/')) return void this.hanging.push(res);
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '';
        const status = path.startsWith('/hooks/') && this.webhookAnswers++ === 0 ? 503 : 200;
        this.received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end(status === 200 ? 'ok' : 'try later');
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }

  /** `wave:state` of every wave CDEvent to `path`, in arrival order. */
  waveEvents(path = '/events'): string[] {
    return this.received
      .filter((r) => r.path === path)
      .map((r) => JSON.parse(r.body) as { customData: { flotilla: { wave?: { index: number; state: string } } } })
      .filter((e) => e.customData.flotilla.wave)
      .map((e) => `${e.customData.flotilla.wave!.index}:${e.customData.flotilla.wave!.state}`);
  }

  webhook(): Received[] {
    return this.received.filter((r) => r.path.startsWith('/hooks/'));
  }
}

const MINUTE = 60_000;
const digest = (c: string) => `sha256:${c.repeat(64)}`;
const REPO = 'oci://registry.example/team-a/told';
const SECRET_PATH = '/hooks/T0001/B0001/Zm9vYmFyc2VjcmV0';

describe('rollout notices', () => {
  let hub: TestHub;
  const clock = new OffsetClock();
  const resolver = new SettableResolver();
  const runner = new RecordingRunner('hub-notices');
  const receiver = new Receiver();
  let viewer = '';

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const rollout = async (): Promise<any> => (await hub.call('GET', '/api/v1/projects/told/rollout')).body;
  const states = async () => ((await rollout()).waves as Array<{ state: string }>).map((w) => w.state).join(',');
  /** Waits until both the CDEvents and the answered webhook bodies reach `expected` (`wave:state`), then checks them whole. */
  async function told(expected: string[], what: string): Promise<void> {
    await eventually(what, async () => (receiver.waveEvents().length >= expected.length && okBodies().length >= expected.length ? true : undefined), 60_000).catch((err: Error) => {
      throw new Error(`${err.message}; CDEvents ${JSON.stringify(receiver.waveEvents())}, webhook ${JSON.stringify(okBodies())}`);
    });
    expect(receiver.waveEvents()).toEqual(expected);
    expect(okBodies().map(waveOfText)).toEqual(expected);
  }
  const okBodies = () => receiver.webhook().filter((r) => r.status === 200).map((r) => r.body);
  /** `wave:state` of a Slack body, from its words. */
  function waveOfText(body: string): string {
    const { text } = JSON.parse(body) as { text: string };
    const m = /^Flotilla project told: wave (\d) \([a-z, ]+\) is ([a-z ]+) \(was/.exec(text);
    const words: Record<string, string> = { progressing: 'progressing', soaking: 'soaking', done: 'done', 'awaiting approval': 'awaitingApproval', failed: 'failed', 'rolled back': 'rolledBack' };
    return m ? `${m[1]}:${words[m[2]] ?? m[2]}` : `unreadable: ${text}`;
  }

  beforeAll(async () => {
    await receiver.start();
    const cdevents = { ...defaultCdeventsConfig(), backoff: { initialMs: 200, factor: 1, maxMs: 200, maxAttempts: 10 }, deadlineMs: 5000, delivery: true };
    // the page's address as people reach it: the chat message links to the Project there
    hub = await startTestHub('postgres', { scheduler: fastScheduler({ tickMs: 250, sourcePollMs: 200, hubId: 'hub-notices' }), cdevents, publicUrl: 'https://flotilla.example.com' }, { scheduler: { targetRunner: runner, tagResolver: resolver }, clock });
    await addFakeClusters(hub, [['s1', 'staging'], ['p1', 'prod']]);
    const res = await hub.call('POST', '/api/v1/tokens', { body: { name: 'watcher', role: 'viewer' } });
    expect(res.status).toBe(201);
    viewer = res.body.token;
  });

  afterAll(async () => {
    await hub?.close();
    await receiver.close();
  });

  it('refuses a webhook that would send its URL in clear, naming the field, and creates nothing', async () => {
    const body = (notificationWebhook: unknown) => ({ body: { name: 'told', namespace: 'told', source: { repository: REPO, tag: 'stable' }, targets: { groups: ['staging'] }, notificationWebhook } });
    const cases: Array<[unknown, string]> = [
      ['http://chat.example/hooks/x', 'notificationWebhook: must be an https:// URL (http:// only to a loopback address)'],
      [`https://chat.example/${'a'.repeat(2048)}`, 'notificationWebhook: must be at most 2048 characters'],
      ['https://user:pw@chat.example/hooks/x', 'notificationWebhook: must not contain a user name or password'],
      [42, 'notificationWebhook: must be a string'],
    ];
    for (const [value, problem] of cases) {
      const res = await hub.call('POST', '/api/v1/projects', body(value));
      expect({ value, status: res.status }).toEqual({ value, status: 400 });
      expect(JSON.stringify(res.body.problems)).toContain(problem);
    }
    expect((await hub.call('GET', '/api/v1/projects/told')).status).toBe(404);
  });

  it('tells each wave transition once, in order, as CDEvents and to the chat webhook, retrying a failed answer', async () => {
    resolver.digest = digest('a');
    const revision = `stable@${digest('a')}`;
    const created = await hub.call('POST', '/api/v1/projects', {
      body: {
        name: 'told', namespace: 'told', source: { repository: REPO, tag: 'stable' }, targets: { groups: ['staging', 'prod'] },
        rollout: { waves: [{ group: 'staging', soak: '10m' }, { group: 'prod', approval: true }] },
        cdeventsSink: `${receiver.base}/events`, notificationWebhook: `${receiver.base}${SECRET_PATH}`,
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.notificationWebhook).toBe(`${receiver.base}/…`);

    await told(['0:progressing', '0:soaking'], 'staging moving, then soaking');
    // the webhook's first answer was a 503: the same body came again, and only then the next
    const hooks = receiver.webhook();
    expect(hooks.map((h) => h.status).slice(0, 3)).toEqual([503, 200, 200]);
    expect(hooks[1].body).toBe(hooks[0].body);
    expect(hooks[0].headers['content-type']).toBe('application/json');
    expect(JSON.parse(hooks[0].body)).toEqual({
      text: `Flotilla project told: wave 0 (staging) is progressing (was waiting)\nrevision ${revision}: 0 of 1 healthy, 0 moving, 1 waiting, 0 failed\nhttps://flotilla.example.com/#/projects/told`,
    });
    const first = JSON.parse(receiver.received.find((r) => r.path === '/events' && r.body.includes('"wave"'))!.body);
    expect(first.context.type).toBe('dev.cdevents.environment.modified.0.3.0');
    expect(first.subject).toMatchObject({ id: 'projects/told/told', content: { name: 'told' } });
    expect(first.customData.flotilla).toMatchObject({ reason: 'WaveProgressing', revision, wave: { index: 0, groups: ['staging'], state: 'progressing', previous: 'waiting', total: 1 } });

    // the soak ends by the hub's clock, with no report to say so: the pass sees it
    clock.advance(11 * MINUTE);
    await told(['0:progressing', '0:soaking', '0:done', '1:awaitingApproval'], 'staging done, prod awaiting approval');
    expect((await hub.call('POST', '/api/v1/projects/told/rollout/approve', { body: {} })).status).toBe(200);
    await told(['0:progressing', '0:soaking', '0:done', '1:awaitingApproval', '1:progressing', '1:done'], 'prod moving, then done');
    expect(await states()).toBe('done,done,done');

    // the events are in the Project's history too, with their words
    const events = (await hub.call('GET', '/api/v1/projects/told/events?limit=100')).body.items as Array<{ reason: string; message: string }>;
    expect(events.filter((e) => e.reason.startsWith('Wave')).map((e) => e.reason).sort()).toEqual(['WaveAwaitingApproval', 'WaveDone', 'WaveDone', 'WaveProgressing', 'WaveProgressing', 'WaveSoaking']);
    expect(events.find((e) => e.reason === 'WaveAwaitingApproval')!.message).toBe(`wave 1 (prod) is awaiting approval on revision ${revision} (was waiting): 0 of 1 healthy, 0 moving, 1 waiting, 0 failed`);

    // a new revision starts afresh; its first transition arriving shows nothing before it was told again
    clock.reset();
    resolver.digest = digest('b');
    await told(['0:progressing', '0:soaking', '0:done', '1:awaitingApproval', '1:progressing', '1:done', '0:progressing'], 'b opens staging');
    expect(JSON.parse(okBodies().at(-1)!).text).toContain(`revision stable@${digest('b')}: `);
  });

  it('tells a change once however many passes see it at once', async () => {
    const revision = `stable@${digest('b')}`;
    await told(['0:progressing', '0:soaking', '0:done', '1:awaitingApproval', '1:progressing', '1:done', '0:progressing', '0:soaking'], 'b soaking in staging');
    const projects = hub.app.get(ProjectsRepository);
    const id = (await projects.findByName('told'))!.id;
    // as if staging's soak had not been told yet: every pass that reads this sees the same change
    expect(await projects.announceWaves(id, { revision, states: ['soaking', 'waiting', 'waiting'] }, { revision, states: ['progressing', 'waiting', 'waiting'] })).toBe(true);
    const copies = await Promise.all([1, 2, 3, 4].map(async () => (await projects.findByName('told'))!));
    await Promise.all(copies.map((p) => hub.app.get(WaveAdvance).advance(p)));
    const soaks = async () => ((await hub.call('GET', '/api/v1/projects/told/events?limit=100')).body.items as Array<{ reason: string; message: string }>).filter((e) => e.reason === 'WaveSoaking' && e.message.includes(revision));
    expect(await soaks()).toHaveLength(2);
    await told(['0:progressing', '0:soaking', '0:done', '1:awaitingApproval', '1:progressing', '1:done', '0:progressing', '0:soaking', '0:soaking'], 'the soak told again, once');
    expect((await projects.findByName('told'))!.rolloutWaveStates).toEqual({ revision, states: ['soaking', 'waiting', 'waiting'] });
  });

  it('tells a wave failing past its budget, then its automatic rollback', async () => {
    const before = resolver.digest;
    const created = await hub.call('POST', '/api/v1/projects', {
      body: {
        name: 'falls', namespace: 'falls', source: { repository: REPO, tag: 'stable' }, targets: { groups: ['staging', 'prod'] },
        rollout: { waves: [{ group: 'staging' }, { group: 'prod' }], onFailure: 'rollback' }, cdeventsSink: `${receiver.base}/events/falls`,
      },
    });
    expect(created.status).toBe(201);
    const falls = async (expected: string[], what: string) => {
      await eventually(what, async () => (receiver.waveEvents('/events/falls').length >= expected.length ? true : undefined), 60_000).catch((err: Error) => {
        throw new Error(`${err.message}; CDEvents ${JSON.stringify(receiver.waveEvents('/events/falls'))}`);
      });
      expect(receiver.waveEvents('/events/falls')).toEqual(expected);
    };
    await falls(['0:progressing', '0:done', '1:progressing', '1:done'], `falls done on ${before}`);
    runner.failing.add(`s1@${digest('c')}`);
    resolver.digest = digest('c');
    await falls(['0:progressing', '0:done', '1:progressing', '1:done', '0:progressing', '0:failed', '0:rolledBack'], 'c failing in staging, then rolled back');
    const failed = receiver.received.filter((r) => r.path === '/events/falls').map((r) => JSON.parse(r.body)).find((e) => e.customData.flotilla.reason === 'WaveFailed');
    expect(failed.customData.flotilla).toMatchObject({ revision: `stable@${digest('c')}`, wave: { index: 0, state: 'failed', previous: 'progressing', failed: 1, total: 1 }, error: expect.stringContaining('wave 0 (staging) is failed') });
    expect((await hub.call('DELETE', '/api/v1/projects/falls?instances=orphan')).status).toBe(200);
  });

  it("keeps a Project's CDEvents going while its chat webhook does not answer", async () => {
    const created = await hub.call('POST', '/api/v1/projects', {
      body: {
        name: 'loud', namespace: 'loud', source: { repository: REPO, tag: 'stable' }, targets: { groups: ['staging'] },
        rollout: { waves: [{ group: 'staging' }] }, cdeventsSink: `${receiver.base}/events/loud`, notificationWebhook: `${receiver.base}/down/T1/B1/x`,
      },
    });
    expect(created.status).toBe(201);
    // staging fails on the current revision (c): the wave opens, then fails
    await eventually('both CDEvents of loud', async () => (receiver.waveEvents('/events/loud').length >= 2 ? true : undefined), 60_000);
    expect(receiver.waveEvents('/events/loud')).toEqual(['0:progressing', '0:failed']);
    // meanwhile the webhook's first message is still being tried: it waits for its deadline on every attempt
    expect(receiver.hanging.length).toBeGreaterThanOrEqual(1);
    const chat = ((await hub.call('GET', '/api/v1/projects/loud/deliveries?limit=100')).body.items as Array<{ type: string; state: string }>).filter((d) => d.type.startsWith('chat.'));
    expect(chat.map((d) => [d.type, d.state])).toEqual(expect.arrayContaining([['chat.WaveProgressing', 'pending']]));
    expect((await hub.call('DELETE', '/api/v1/projects/loud?instances=orphan')).status).toBe(200);
  });

  it('shows the webhook URL to nobody beyond scheme and host', async () => {
    for (const token of [undefined, viewer]) {
      const res = await hub.call('GET', '/api/v1/projects/told', token ? { token } : {});
      expect(res.status).toBe(200);
      expect(res.body.notificationWebhook).toBe(`${receiver.base}/…`);
      expect(JSON.stringify(res.body)).not.toContain('Zm9vYmFyc2VjcmV0');
      const listed = await hub.call('GET', '/api/v1/projects', token ? { token } : {});
      expect(JSON.stringify(listed.body)).not.toContain('Zm9vYmFyc2VjcmV0');
    }
    const deliveries = await hub.call('GET', '/api/v1/projects/told/deliveries?limit=100');
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.items.some((d: { type: string }) => d.type === 'chat.WaveProgressing')).toBe(true);
    expect(JSON.stringify(deliveries.body)).not.toContain('Zm9vYmFyc2VjcmV0');
    const events = await hub.call('GET', '/api/v1/projects/told/events?limit=100');
    expect(JSON.stringify(events.body)).not.toContain('Zm9vYmFyc2VjcmV0');
  });

  it('changes the webhook by PATCH only with good input, and clears it with null', async () => {
    const bad = await hub.call('PATCH', '/api/v1/projects/told', { body: { notificationWebhook: 'http://chat.example/hooks/other' } });
    expect(bad.status).toBe(400);
    expect(bad.body.problems).toEqual(['notificationWebhook: must be an https:// URL (http:// only to a loopback address): the webhook URL is a secret and never crosses a network in clear']);
    const view = await hub.call('GET', '/api/v1/projects/told');
    expect(view.body).toMatchObject({ notificationWebhook: `${receiver.base}/…`, generation: 1 });

    const moved = await hub.call('PATCH', '/api/v1/projects/told', { body: { notificationWebhook: `https://chat.example${SECRET_PATH}` } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ notificationWebhook: 'https://chat.example/…', generation: 2 });
    const cleared = await hub.call('PATCH', '/api/v1/projects/told', { body: { notificationWebhook: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.notificationWebhook).toBeNull();
    // the viewer may not set it
    expect((await hub.call('PATCH', '/api/v1/projects/told', { token: viewer, body: { notificationWebhook: `${receiver.base}${SECRET_PATH}` } })).status).toBe(403);
    expect((await hub.call('GET', '/api/v1/projects/told')).body.notificationWebhook).toBeNull();
  });
});
