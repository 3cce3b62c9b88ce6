import { adminConnection, createNamespace } from '../testdata/cluster';
import { ConflictError, NotFoundError } from './errors';
import { formatMicroTime, LeaseLock } from './lease-lock';
import { ObjectClient } from './object-client';

describe('formatMicroTime', () => {
  it('writes six fractional digits in UTC, as the API server expects for MicroTime', () => {
    expect(formatMicroTime(Date.UTC(2026, 0, 2, 15, 4, 5, 7))).toBe('2026-01-02T15:04:05.007000Z');
  });
});

describe('LeaseLock (real API server)', () => {
  const connection = adminConnection();
  afterAll(() => connection.close());

  it('creates, reads and updates on the resourceVersion it read; a stale update is a ConflictError', async () => {
    const ns = await createNamespace(new ObjectClient(connection), 'lease-lock');
    const lock = new LeaseLock(connection, ns, 'lock');
    await expect(lock.get()).rejects.toBeInstanceOf(NotFoundError);

    const created = await lock.create({ holderIdentity: 'a', leaseDurationSeconds: 5, renewTime: formatMicroTime(Date.now()), leaseTransitions: 0 });
    expect(created.spec).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 5, leaseTransitions: 0 });
    await expect(lock.create({ holderIdentity: 'b' })).rejects.toBeInstanceOf(ConflictError);

    const updated = await lock.update(created, { holderIdentity: 'b', leaseTransitions: 1 });
    // fields not given are kept from the base
    expect(updated.spec).toMatchObject({ holderIdentity: 'b', leaseDurationSeconds: 5, leaseTransitions: 1 });
    const stale = await lock.update(created, { holderIdentity: 'c' }).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(ConflictError);
    expect((stale as Error).message).toContain(`Lease/${ns}/lock`);
    expect((await lock.get()).spec?.holderIdentity).toBe('b');
  });
});
