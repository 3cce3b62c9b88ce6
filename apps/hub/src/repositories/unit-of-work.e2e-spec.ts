import { AlreadyExistsError } from '../common/errors';
import { startTestHub, type TestHub } from '../../test/hub';
import { ClustersRepository } from './clusters.repository';
import { UnitOfWork } from './unit-of-work';

describe('UnitOfWork and repositories on the harness PostgreSQL', () => {
  let hub: TestHub;
  let uow: UnitOfWork;
  beforeAll(async () => {
    hub = await startTestHub('postgres');
    uow = hub.app.get(UnitOfWork);
  });
  afterAll(() => hub?.close());

  const cluster = (name: string) => ({ name, groupName: 'g', labels: {}, mode: 'agent' as const });

  it('rolls back every write when the callback throws after the first one, and rethrows its error', async () => {
    const failure = new Error('second step failed');
    const ran: string[] = [];
    await expect(
      uow.transaction(async (tx) => {
        const c = await tx.clusters.insert(cluster('rolled-back'));
        await tx.credentials.store('token', { token: 'x' }, 'cluster-server https://127.0.0.1:1');
        tx.afterCommit(() => ran.push('after commit'));
        expect(await tx.clusters.findById(c.id)).not.toBeNull(); // visible inside
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await hub.app.get(ClustersRepository).findByName('rolled-back')).toBeNull();
    expect(ran).toEqual([]);
  });

  it('commits, then runs the after-commit actions', async () => {
    const ran: string[] = [];
    const id = await uow.transaction(async (tx) => {
      tx.afterCommit(() => ran.push('after commit'));
      const c = await tx.clusters.insert(cluster('committed'));
      ran.push('in transaction');
      return c.id;
    });
    expect(ran).toEqual(['in transaction', 'after commit']);
    expect((await hub.app.get(ClustersRepository).findByName('committed'))?.id).toBe(id);
  });

  it('turns a duplicate name into AlreadyExistsError naming the object, with the driver error as cause', async () => {
    const err = await uow.transaction((tx) => tx.clusters.insert(cluster('committed'))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AlreadyExistsError);
    expect((err as AlreadyExistsError).message).toBe('cluster "committed" already exists');
    expect((err as AlreadyExistsError).cause).toBeDefined();
  });

  it('answers 409 to the loser of two concurrent creations of one name', async () => {
    const body = { name: 'raced', namespace: 'raced', source: { repository: 'oci://127.0.0.1:5000/acme/raced' } };
    const answers = await Promise.all([1, 2, 3].map(() => hub.call('POST', '/api/v1/projects', { body })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409]);
    const lost = answers.find((a) => a.status === 409)!;
    expect(lost.body).toMatchObject({ error: 'Conflict', message: 'project "raced" already exists' });
  });
});
