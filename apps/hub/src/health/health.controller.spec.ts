import { ServiceUnavailableException } from '@nestjs/common';
import type { DatabaseRepository } from '../database/database.repository';
import { HealthController } from './health.controller';

describe('HealthController.readyz', () => {
  it('says the database is not reachable, and nothing of the error (it is unauthenticated)', async () => {
    const down = { ping: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:42597 as user flotilla')) } as unknown as DatabaseRepository;
    const err = await new HealthController(down).readyz().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceUnavailableException);
    const body = (err as ServiceUnavailableException).getResponse();
    expect(body).toEqual({ status: 'unavailable', reason: 'database not reachable' });
    expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|flotilla/);
  });

  it('answers ok when the database answers', async () => {
    const up = { ping: () => Promise.resolve() } as unknown as DatabaseRepository;
    expect(await new HealthController(up).readyz()).toEqual({ status: 'ok' });
  });
});
