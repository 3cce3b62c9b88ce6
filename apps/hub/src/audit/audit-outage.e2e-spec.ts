import { DataSource } from 'typeorm';
import { eventually } from '../../test/scheduler-fixtures';
import { startTestHub, type TestHub } from '../../test/hub';
import { AuditRecorder } from './audit-recorder';

// Recording never fails a request: entries wait in memory while the database
// is away and are written when it is back; a batch the database refuses is
// dropped, counted and logged, and the queue goes on.

describe('audit entries when the database is away or refuses them', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub('postgres');
  });
  afterAll(() => hub?.close());

  const linesWith = (msg: string) => hub.logs.filter((l) => (JSON.parse(l) as { msg?: string }).msg === msg);
  const send = async (requestId: string) => {
    const res = await fetch(`${hub.url}/api/v1/clusters`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.adminToken}`, 'content-type': 'application/json', 'x-request-id': requestId },
      body: JSON.stringify({ name: requestId, mode: 'agent' }),
    });
    await res.text();
    return res.status;
  };
  /** The entry's log line is written when it is queued: after it, a flush includes the entry. */
  const queued = (requestId: string) => eventually(`the audit line of ${requestId}`, async () => (hub.logs.some((l) => l.includes('"audit":true') && l.includes(`"requestId":"${requestId}"`)) ? true : undefined));
  const entryOf = async (requestId: string) => {
    const res = await hub.call('GET', '/api/v1/audit?object=cluster');
    return (res.body.items as Array<{ requestId: string; outcome: number }>).find((e) => e.requestId === requestId);
  };

  it('keeps the entries of an outage queued and writes them once the database is back', async () => {
    const recorder = hub.app.get(AuditRecorder);
    const data = hub.app.get(DataSource);
    await data.destroy();
    try {
      expect(await send('during-outage')).toBe(503);
      await queued('during-outage');
      await recorder.flush();
      expect(recorder.queued).toBe(1);
      await recorder.flush();
      expect(linesWith('audit entries not written yet; retrying')).toHaveLength(1);
      expect(hub.logs.filter((l) => l.includes('"audit":true') && l.includes('during-outage'))).toHaveLength(1);
    } finally {
      await data.initialize();
    }
    const entry = await eventually('the outage entry written', () => entryOf('during-outage'));
    expect(entry.outcome).toBe(503);
    expect(recorder.queued).toBe(0);
    expect(linesWith('audit entries written again')).toHaveLength(1);
  });

  it('drops a batch the database refuses, counts it, and writes the next ones', async () => {
    const recorder = hub.app.get(AuditRecorder);
    const data = hub.app.get(DataSource);
    await data.query(`CREATE FUNCTION refuse_marked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.request_id = 'refused-entry' THEN RAISE EXCEPTION 'injected refusal'; END IF;
        RETURN NEW;
      END $$`);
    await data.query(`CREATE TRIGGER refuse_marked BEFORE INSERT ON audit_entries FOR EACH ROW EXECUTE FUNCTION refuse_marked()`);
    expect(await send('refused-entry')).toBe(201);
    await queued('refused-entry');
    await recorder.flush();
    expect(recorder.queued).toBe(0);
    expect(linesWith('audit entries refused by the database; dropped (their log lines remain)')).toHaveLength(1);
    const metrics = (await hub.call('GET', '/metrics')).text;
    expect(metrics).toContain('flotilla_audit_entries_dropped_total{reason="refused"} 1');

    expect(await send('after-refusal')).toBe(201);
    await eventually('the next entry written', () => entryOf('after-refusal'));
    expect(await entryOf('refused-entry')).toBeUndefined();
  });
});
