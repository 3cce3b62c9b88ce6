import { QueryFailedError, DataSource } from 'typeorm';
import { loggableError } from './common/http-exception.filter';
import { closeGenericPlanPool, openGenericPlanPool } from './database/generic-plan-pool';
import { startTestHub, type TestHub } from '../test/hub';

// The database going away is an outage: 503 with Retry-After for every
// request that needs it, one log line when it goes and one when it is back.

describe('a database outage', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub('postgres');
  });
  afterAll(() => hub?.close());

  const linesWith = (msg: string) => hub.logs.filter((l) => (JSON.parse(l) as { msg?: string }).msg === msg);

  it('answers 503 with Retry-After, logs once when the database goes and once when it is back', async () => {
    expect((await hub.call('GET', '/api/v1/clusters')).status).toBe(200);
    const data = hub.app.get(DataSource);
    // both of the hub's pools lose the database (the pages' generic-plan sessions too)
    await closeGenericPlanPool(data);
    await data.destroy();
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${hub.url}/api/v1/clusters`, { headers: { authorization: `Bearer ${hub.adminToken}` } });
      expect([res.status, res.headers.get('retry-after')]).toEqual([503, '5']);
      expect(await res.json()).toMatchObject({ error: 'ServiceUnavailable', message: 'the database is not reachable; retry in 5 s' });
    }
    expect((await fetch(`${hub.url}/healthz`)).status).toBe(200);
    expect(linesWith('database unreachable: answering 503 until it is back')).toHaveLength(1);
    expect(linesWith('unhandled error')).toEqual([]);

    await data.initialize();
    expect(await openGenericPlanPool(data)).toBeDefined();
    expect((await hub.call('GET', '/api/v1/clusters')).status).toBe(200);
    const back = linesWith('database reachable again');
    expect(back).toHaveLength(1);
    expect(JSON.parse(back[0])).toMatchObject({ failedRequests: 5 });
  });
});

describe('loggableError', () => {
  it('keeps what explains a failed query and drops its SQL and parameters', () => {
    const err = new QueryFailedError('UPDATE credentials SET secret = $1', ['s3cret-password'], Object.assign(new Error('value too long'), { code: '22001' }));
    const logged = JSON.stringify(loggableError(err));
    expect(logged).not.toContain('s3cret-password');
    expect(logged).not.toContain('UPDATE credentials');
    expect(JSON.parse(logged)).toMatchObject({ type: 'QueryFailedError', message: 'value too long', code: '22001' });
  });
});
