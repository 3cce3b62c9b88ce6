import { FixedClock } from '../common/clock';
import { UnitOfWork } from '../repositories/unit-of-work';
import { startTestHub, type TestHub } from '../../test/hub';
import type { EventSink, RecordedEvent } from './hub-event';
import { EventsService, MAX_PENDING_PER_SINK } from './events.service';

const NOW = '2026-03-04T05:06:07.000Z';

class RecordingSink implements EventSink {
  readonly received: RecordedEvent[] = [];
  constructor(readonly name: string) {}
  async deliver(event: RecordedEvent): Promise<void> {
    this.received.push(event);
  }
}

class FailingSink implements EventSink {
  readonly name = 'failing';
  calls = 0;
  down = true;
  async deliver(): Promise<void> {
    this.calls++;
    if (this.down) throw new Error('sink endpoint refused');
  }
}

/** Holds every delivery until released. */
class BlockingSink implements EventSink {
  constructor(readonly name = 'blocking') {}
  readonly started: RecordedEvent[] = [];
  private release!: () => void;
  private readonly gate = new Promise<void>((r) => (this.release = r));
  async deliver(event: RecordedEvent): Promise<void> {
    this.started.push(event);
    await this.gate;
  }
  open(): void {
    this.release();
  }
}

describe('EventsService on the harness PostgreSQL', () => {
  let hub: TestHub;
  let events: EventsService;
  let projectId: string;
  const clock = new FixedClock(NOW);
  const recording = new RecordingSink('recording');

  const metric = async (line: string): Promise<number> => {
    const text = (await hub.call('GET', '/metrics')).text;
    const found = text.split('\n').find((l) => l.startsWith(`${line} `));
    return found ? Number(found.slice(line.length + 1)) : 0;
  };

  beforeAll(async () => {
    hub = await startTestHub('postgres', {}, { clock });
    events = hub.app.get(EventsService);
    events.addSink(recording);
    expect((await hub.call('POST', '/api/v1/clusters', { body: { name: 'eu-1', group: 'production', mode: 'agent' } })).status).toBe(201);
    const res = await hub.call('POST', '/api/v1/projects', { body: { name: 'shop', namespace: 'shop', source: { repository: 'oci://127.0.0.1:5000/acme/shop' }, targets: { groups: ['production'] } } });
    expect(res.status).toBe(201);
    projectId = (await hub.app.get(UnitOfWork).transaction((tx) => tx.projects.findByName('shop')))!.id;
  });
  afterAll(() => hub?.close());

  it('writes the history row, counts the event and hands it to the sinks, stamped by the clock', async () => {
    await events.flush();
    expect(recording.received.map((e) => [e.reason, e.clusterName])).toEqual([
      ['Created', null],
      ['TargetAdded', 'eu-1'],
    ]);
    expect(recording.received[1]).toMatchObject({ projectId, type: 'Normal', time: new Date(NOW) });
    const listed = await hub.call('GET', '/api/v1/projects/shop/events');
    expect(listed.body.items).toEqual(expect.arrayContaining([expect.objectContaining({ reason: 'TargetAdded', cluster: 'eu-1', time: NOW })]));
    expect(await metric('flotilla_events_total{type="Normal",reason="TargetAdded"}')).toBe(1);
  });

  it('never lets a failing sink fail the caller: failures are counted, logged once until it recovers', async () => {
    const failing = new FailingSink();
    events.addSink(failing);
    for (const n of [1, 2, 3]) {
      await events.record({ projectId, clusterName: 'eu-1', type: 'Warning', reason: 'HealthCheckFailed', message: `probe ${n}`, revision: 'sha256:abc', component: 'web', instance: 'shop-web' });
    }
    await events.flush();
    expect(failing.calls).toBe(3);
    expect(await metric('flotilla_event_sink_failures_total{sink="failing"}')).toBe(3);
    expect(hub.logs.filter((l) => l.includes('event sink failed')).length).toBe(1);
    expect(await metric('flotilla_events_total{type="Warning",reason="HealthCheckFailed"}')).toBe(3);
    expect(recording.received.filter((e) => e.reason === 'HealthCheckFailed').map((e) => e.message)).toEqual(['probe 1', 'probe 2', 'probe 3']);
    expect(recording.received.at(-1)).toMatchObject({ revision: 'sha256:abc', component: 'web', instance: 'shop-web' });

    // back up: said once; down again: logged again
    const probe = (message: string) => events.record({ projectId, clusterName: null, type: 'Normal', reason: 'HealthCheckFailed', message });
    failing.down = false;
    await probe('up');
    await events.flush();
    expect(hub.logs.filter((l) => l.includes('event sink delivers again')).length).toBe(1);
    failing.down = true;
    await probe('down again');
    await events.flush();
    expect(hub.logs.filter((l) => l.includes('event sink failed')).length).toBe(2);
    expect(await metric('flotilla_event_sink_failures_total{sink="failing"}')).toBe(4);
    failing.down = false;
  });

  it('returns before a slow sink has delivered, and other sinks still get the event', async () => {
    const blocking = new BlockingSink();
    events.addSink(blocking);
    await events.record({ projectId, clusterName: null, type: 'Normal', reason: 'InstancePruneFailed', message: 'slow' });
    // record() resolved although the blocking sink's delivery is still open
    expect(blocking.started.map((e) => e.reason)).toEqual(['InstancePruneFailed']);
    expect(recording.received.some((e) => e.reason === 'InstancePruneFailed')).toBe(true);
    let flushed = false;
    const flushing = events.flush().then(() => (flushed = true));
    await events.record({ projectId, clusterName: null, type: 'Normal', reason: 'InstancePruneFailed', message: 'second' });
    expect(flushed).toBe(false); // still waiting for the blocking sink
    blocking.open();
    await flushing;
    expect(blocking.started.map((e) => e.message)).toEqual(['slow', 'second']);
  });

  it('skips a sink that has too many deliveries in flight, counting what it dropped', async () => {
    const stuck = new BlockingSink('stuck');
    events.addSink(stuck);
    events.maxPendingPerSink = 2;
    try {
      for (const n of [1, 2, 3]) await events.record({ projectId, clusterName: null, type: 'Normal', reason: 'InstanceDeleteFailed', message: `burst ${n}` });
    } finally {
      events.maxPendingPerSink = MAX_PENDING_PER_SINK;
    }
    expect(stuck.started.map((e) => e.message)).toEqual(['burst 1', 'burst 2']);
    expect(recording.received.filter((e) => e.reason === 'InstanceDeleteFailed')).toHaveLength(3);
    expect(await metric('flotilla_event_sink_dropped_total{sink="stuck"}')).toBe(1);
    stuck.open();
    await events.flush();
  });

  it('stores events recorded together in one go; one that cannot be stored fails alone', async () => {
    const gone = '00000000-0000-4000-8000-000000000000'; // no such Project: its row breaks the foreign key
    const at = (projectId: string, message: string) => events.record({ projectId, clusterName: 'eu-1', type: 'Normal', reason: 'InstanceApplied', message });
    const results = await Promise.allSettled([at(projectId, 'together 1'), at(gone, 'orphan'), at(projectId, 'together 2')]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    await events.flush();
    expect(recording.received.filter((e) => e.message.startsWith('together') || e.message === 'orphan').map((e) => e.message)).toEqual(['together 1', 'together 2']);
    const listed = await hub.call('GET', '/api/v1/projects/shop/events?limit=100');
    expect(listed.body.items.filter((e: { message: string }) => e.message.startsWith('together')).map((e: { message: string }) => e.message).sort()).toEqual(['together 1', 'together 2']);
  });

  it('inside a transaction that rolls back, records nothing, counts nothing and delivers nothing', async () => {
    const before = recording.received.length;
    await expect(
      hub.app.get(UnitOfWork).transaction(async (tx) => {
        await events.record({ projectId, clusterName: null, type: 'Normal', reason: 'InstancesOrphaned', message: 'never happened' }, tx);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    await events.flush();
    expect(recording.received.length).toBe(before);
    expect(await metric('flotilla_events_total{type="Normal",reason="InstancesOrphaned"}')).toBe(0);
    const listed = await hub.call('GET', '/api/v1/projects/shop/events?limit=100');
    expect(listed.body.items.some((e: { reason: string }) => e.reason === 'InstancesOrphaned')).toBe(false);
  });

  it('takes every service time from the clock', async () => {
    clock.set('2026-05-06T07:08:09.000Z');
    const token = await hub.call('POST', '/api/v1/tokens', { body: { name: 'ci', role: 'viewer' } });
    const revoked = await hub.call('DELETE', `/api/v1/tokens/${token.body.id}`);
    expect(revoked.body.revokedAt).toBe('2026-05-06T07:08:09.000Z');
  });
});
