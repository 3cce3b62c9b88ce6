import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '../../../../test/harness/ports';
import { launch, startTestHub, type TestHub } from '../../test/hub';
import { defaultCdeventsConfig } from '../config/cdevents-config';
import { EventsService } from '../events/events.service';
import { CdeventOutboxRepository } from '../repositories/cdevent-outbox.repository';
import { UnitOfWork } from '../repositories/unit-of-work';
import { CdeventsDelivery, type DeliveryPass } from './delivery.service';

// The outbox and its delivery on the harness PostgreSQL, passes driven by
// hand (delivery off in this hub): order per Project, retries, the cap, the
// secret header, two replicas claiming at once, and an API-only replica
// delivering on its own.

/** A sink that answers with `status` and keeps what it received. */
class Sink {
  status = 202;
  readonly received: Array<{ headers: IncomingHttpHeaders; type: string }> = [];
  private readonly server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      this.received.push({ headers: req.headers, type: String(req.headers['ce-type']) });
      res.writeHead(this.status).end(this.status >= 300 ? 'sink says no' : '');
    });
  });
  url = '';
  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/events`;
  }
  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

describe('CDEvents delivery on the harness PostgreSQL', () => {
  let hub: TestHub;
  let delivery: CdeventsDelivery;
  const sink = new Sink();

  beforeAll(async () => {
    await sink.start();
    hub = await startTestHub('postgres', { cdevents: { ...defaultCdeventsConfig(), backoff: { initialMs: 10, factor: 1, maxMs: 10, maxAttempts: 3 }, deadlineMs: 2000, delivery: false } });
    delivery = hub.app.get(CdeventsDelivery);
  });
  afterAll(async () => {
    await hub?.close();
    await sink.close();
  });

  const create = async (name: string, extra: Record<string, unknown>) =>
    expect((await hub.call('POST', '/api/v1/projects', { body: { name, namespace: 'apps', source: { repository: `oci://127.0.0.1:5000/acme/${name}` }, targets: { names: ['nowhere'] }, ...extra } })).status).toBe(201);
  const deliveries = async (name: string, query = '') => (await hub.call('GET', `/api/v1/projects/${name}/deliveries${query}`)).body;
  /** Passes until `done` holds; the retry delay is 10 ms, so a pass soon finds the next attempt due. */
  const passUntil = async (done: () => Promise<boolean>): Promise<DeliveryPass[]> => {
    const passes: DeliveryPass[] = [];
    for (let i = 0; i < 500 && !(await done()); i++) passes.push(await delivery.deliverDue());
    if (!(await done())) throw new Error(`not done after 500 passes: ${JSON.stringify(passes.slice(-3))}`);
    return passes;
  };

  it('sends a Project’s events in order with its secret header, each once', async () => {
    await create('ordered', { cdeventsSink: sink.url, cdeventsSinkHeader: { name: 'X-Api-Key', value: 'k-123' } });
    expect((await hub.call('PATCH', '/api/v1/projects/ordered', { body: { annotations: { a: '1' } } })).status).toBe(200);
    expect((await deliveries('ordered')).items.map((d: { state: string }) => d.state)).toEqual(['pending', 'pending']);
    // one event per Project per pass: the second waits for the first
    expect(await delivery.deliverDue()).toEqual({ delivered: 1, retried: 0, failed: 0 });
    expect(sink.received.map((r) => r.type)).toEqual(['dev.cdevents.environment.created.0.3.0']);
    await passUntil(async () => sink.received.length === 2);
    expect(sink.received.map((r) => [r.type, r.headers['x-api-key']])).toEqual([
      ['dev.cdevents.environment.created.0.3.0', 'k-123'],
      ['dev.cdevents.environment.modified.0.3.0', 'k-123'],
    ]);
    const rows = (await deliveries('ordered')).items;
    expect(rows.map((d: { state: string; attempts: number; deliveredAt: string | null }) => [d.state, d.attempts, d.deliveredAt !== null])).toEqual([
      ['delivered', 1, true],
      ['delivered', 1, true],
    ]);
    expect(sink.received.map((r) => r.headers['ce-id'])).toEqual(rows.map((d: { id: string }) => d.id).reverse());
    expect(hub.responses.some((r) => r.includes('k-123'))).toBe(false);
  });

  it('retries a refusing sink, gives up after the cap, says so in the API and metrics, and goes on with the next event', async () => {
    sink.status = 503;
    sink.received.length = 0;
    await create('refused', { cdeventsSink: sink.url });
    expect((await hub.call('PATCH', '/api/v1/projects/refused', { body: { annotations: { a: '1' } } })).status).toBe(200);
    await passUntil(async () => (await deliveries('refused', '?state=failed')).items.length === 2);
    // three attempts each, one after the other: the second only once the first was given up
    expect(sink.received.map((r) => r.type.split('.')[3])).toEqual(['created', 'created', 'created', 'modified', 'modified', 'modified']);
    const failed = (await deliveries('refused', '?state=failed')).items;
    // the sink's answer is not shown: a sink URL may name any server
    expect(failed.map((d: { attempts: number; lastError: string }) => [d.attempts, d.lastError])).toEqual([
      [3, `POST ${sink.url}: HTTP 503`],
      [3, `POST ${sink.url}: HTTP 503`],
    ]);
    const metrics = (await hub.call('GET', '/metrics')).text;
    expect(metrics).toContain('flotilla_cdevents_deliveries_total{result="failed"} 2');
    expect(metrics).toContain('flotilla_cdevents_deliveries_total{result="retried"} 4');
    expect(metrics).toContain('flotilla_cdevents_outbox_events{state="failed"} 2');
    sink.status = 202;
  });

  it('counts an unreachable sink and one that never answers (past the deadline) as failed attempts', async () => {
    const closed = await freePort();
    await create('unreachable', { cdeventsSink: `http://127.0.0.1:${closed}/` });
    const silent = createServer(() => undefined); // takes the request, never answers
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    await create('silent', { cdeventsSink: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/` });
    try {
      await delivery.deliverDue();
      const [unreachable] = (await deliveries('unreachable')).items;
      expect(unreachable).toMatchObject({ state: 'pending', attempts: 1, lastError: `POST http://127.0.0.1:${closed}/: fetch failed: connect ECONNREFUSED 127.0.0.1:${closed}` });
      expect(unreachable.nextAttemptAt).not.toBeNull();
      const [hung] = (await deliveries('silent')).items;
      expect(hung).toMatchObject({ state: 'pending', attempts: 1, lastError: expect.stringMatching(/: no answer within 2000 ms$/) });
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });

  it('lets two replicas claiming at once take disjoint events, and a lost lease cannot mark one delivered', async () => {
    sink.received.length = 0;
    for (const n of [1, 2, 3, 4]) await create(`pair-${n}`, { cdeventsSink: sink.url });
    const outbox = hub.app.get(CdeventOutboxRepository);
    const [a, b] = await Promise.all([outbox.claim('replica-a', 60_000, 16), outbox.claim('replica-b', 60_000, 16)]);
    const ids = [...a, ...b].map((r) => r.eventId);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...a, ...b].filter((r) => r.projectName.startsWith('pair-'))).toHaveLength(4);
    const [first] = [...a, ...b];
    expect(await outbox.delivered(first.id, 'replica-c')).toBe(false);
  });

  it('writes nothing to the outbox when the transaction of the change rolls back', async () => {
    await create('rollback', { cdeventsSink: sink.url });
    const before = (await deliveries('rollback')).items.length;
    const uow = hub.app.get(UnitOfWork);
    const events = hub.app.get(EventsService);
    const projectId = (await uow.transaction((tx) => tx.projects.findByName('rollback')))!.id;
    await expect(
      uow.transaction(async (tx) => {
        await events.record({ projectId, clusterName: null, type: 'Normal', reason: 'SpecChanged', message: 'never committed' }, tx);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect((await deliveries('rollback')).items).toHaveLength(before);
    await events.record({ projectId, clusterName: null, type: 'Normal', reason: 'SpecChanged', message: 'committed' });
    expect((await deliveries('rollback')).items).toHaveLength(before + 1);
  });

  it('is delivered by an API-only replica (FLOTILLA_SCHEDULER=off) on its own, beside one that delivers nothing', async () => {
    const apiOnly = await launch({ ...hub.config, port: 0, agents: { ...hub.config.agents, port: 0 }, scheduler: { ...hub.config.scheduler, enabled: false, hubId: 'api-only', tickMs: 50 }, cdevents: { ...hub.config.cdevents, delivery: true } });
    const own = new Sink();
    await own.start();
    try {
      expect(apiOnly.config.scheduler.enabled).toBe(false);
      await create('api-only', { cdeventsSink: own.url });
      // no pass by hand: the replica's own loop sends it
      const deadline = Date.now() + 30_000;
      while (!(await deliveries('api-only')).items.every((d: { state: string }) => d.state === 'delivered')) {
        if (Date.now() > deadline) throw new Error(`not delivered: ${JSON.stringify(await deliveries('api-only'))}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(own.received.map((r) => r.type)).toEqual(['dev.cdevents.environment.created.0.3.0']);
    } finally {
      await apiOnly.stop();
      await own.close();
    }
  });

  it("shows under a name taken again only the live Project's deliveries, and a viewer no failure's text", async () => {
    await create('reused', { cdeventsSink: sink.url });
    await passUntil(async () => (await deliveries('reused', '?state=delivered')).items.length === 1);
    expect((await hub.call('DELETE', '/api/v1/projects/reused')).status).toBe(200);
    const ofDeleted = (await deliveries('reused')).items.length;
    expect(ofDeleted).toBeGreaterThanOrEqual(1);
    // the name again, perhaps by another team: none of the deleted Project's deliveries
    await create('reused', {});
    expect((await deliveries('reused')).items).toEqual([]);
    expect((await hub.call('DELETE', '/api/v1/projects/reused')).status).toBe(200);
    expect((await deliveries('reused')).items).toHaveLength(ofDeleted);

    // the error names the sink's URL, whose path may be a secret: operators read it, viewers do not
    const viewer = (await hub.call('POST', '/api/v1/tokens', { body: { name: 'delivery-viewer', role: 'viewer' } })).body.token;
    const seen = (await hub.call('GET', '/api/v1/projects/refused/deliveries?state=failed', { token: viewer })).body.items as Array<{ lastError: string }>;
    expect(seen.map((d) => d.lastError)).toEqual(['the delivery failed; details are shown to operators', 'the delivery failed; details are shown to operators']);
  });

  it('answers 404 for a Project that never was, and 400 for a bad state', async () => {
    expect((await hub.call('GET', '/api/v1/projects/never/deliveries')).status).toBe(404);
    const bad = await hub.call('GET', '/api/v1/projects/ordered/deliveries?state=lost');
    expect([bad.status, bad.body.problems]).toEqual([400, ['state: must be one of pending, delivered, failed']]);
  });
});
