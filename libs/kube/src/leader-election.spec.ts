// Leader election against the real API server. Nothing here sleeps to prove that something
// did not happen: electors whose time matters run on a ManualClock the test advances, and
// the test waits for positive signals (a callback, the Lease's record changing).
import { adminConnection, createNamespace } from '../testdata/cluster';
import type { ClusterConnection } from './connection';
import { ConflictError, KubeApiError, LeaderElectionError } from './errors';
import { LeaderElector, type LeaderElectorOptions } from './leader-election';
import { formatMicroTime, LeaseLock, type Lease, type LeaseCallOptions, type LeaseSpec } from './lease-lock';
import { ObjectClient } from './object-client';
import { eventually } from '../testdata/eventually';

/** A clock the test moves by hand; `sleep` resolves when the clock passes its due time. */
class ManualClock {
  t = 0;
  private waiters = new Set<{ due: number; wake: () => void }>();

  readonly now = (): number => this.t;

  readonly sleep = (ms: number, signal: AbortSignal): Promise<void> =>
    new Promise((resolve) => {
      if (signal.aborted || ms <= 0) return resolve();
      const waiter = {
        due: this.t + ms,
        wake: () => {
          this.waiters.delete(waiter);
          signal.removeEventListener('abort', waiter.wake);
          resolve();
        },
      };
      this.waiters.add(waiter);
      signal.addEventListener('abort', waiter.wake, { once: true });
    });

  /** how many sleeps are pending (the elector is idle between attempts) */
  get sleeping(): number {
    return this.waiters.size;
  }

  advance(ms: number): void {
    this.t += ms;
    for (const w of [...this.waiters]) if (w.due <= this.t) w.wake();
  }
}

interface Candidate {
  elector: LeaderElector;
  /** the signal of each onStartedLeading call */
  started: AbortSignal[];
  stopped: number;
  leaders: string[];
  errors: LeaderElectionError[];
  stop(): Promise<void>;
}

const running = new Set<Candidate>();

function candidate(options: LeaderElectorOptions, work?: (signal: AbortSignal) => Promise<void>): Candidate {
  const c: Candidate = { started: [], stopped: 0, leaders: [], errors: [] } as unknown as Candidate;
  const run = new AbortController();
  c.elector = new LeaderElector({
    ...options,
    onStartedLeading: (signal) => {
      c.started.push(signal);
      return work?.(signal);
    },
    onStoppedLeading: () => void c.stopped++,
    onNewLeader: (id) => void c.leaders.push(id),
    onError: (err) => void c.errors.push(err),
  });
  const done = c.elector.run(run.signal);
  c.stop = async () => {
    run.abort();
    await done;
    running.delete(c);
  };
  running.add(c);
  return c;
}

const fast = { leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 200 };
// where the test does not wait for an expiry, a long lease keeps a starved machine from flipping leaders
const steady = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 200 };

describe('LeaderElector (real API server)', () => {
  const admin = adminConnection();
  const client = new ObjectClient(admin);
  const opened: ClusterConnection[] = [];
  /** a connection of its own per replica, so one can be "killed" by closing it */
  const replicaConnection = () => {
    const conn = adminConnection();
    opened.push(conn);
    return conn;
  };
  const readLease = (ns: string, name = 'agent') => new LeaseLock(admin, ns, name).get();

  afterEach(async () => {
    await Promise.all([...running].map((c) => c.stop()));
  });
  afterAll(async () => {
    await Promise.all(opened.map((c) => c.close()));
    await admin.close();
  });

  it('refuses timings under which the leader could outlive its lease', () => {
    const base = { connection: admin, namespace: 'ns', name: 'agent', identity: 'a' };
    expect(() => new LeaderElector({ ...base, leaseDurationMs: 5000, renewDeadlineMs: 5000 })).toThrow(
      'Lease/ns/agent: renewDeadlineMs (5000) must be below leaseDurationMs (5000)',
    );
    expect(() => new LeaderElector({ ...base, retryPeriodMs: 10_000 })).toThrow(LeaderElectionError);
    expect(() => new LeaderElector({ ...base, identity: '' })).toThrow('needs this replica identity');
    expect(() => new LeaderElector({ ...base, retryPeriodMs: Number.NaN })).toThrow('retryPeriodMs must be a positive number');
  });

  it('elects exactly one of two replicas; the Lease names it and the other reports it', async () => {
    const ns = await createNamespace(client, 'elect');
    const a = candidate({ ...steady, connection: replicaConnection(), namespace: ns, name: 'agent', identity: 'a' });
    const b = candidate({ ...steady, connection: replicaConnection(), namespace: ns, name: 'agent', identity: 'b' });

    const [leader, follower] = await eventually('a leader the other has seen', () =>
      a.started.length && b.leaders.includes('a') ? [a, b] : b.started.length && a.leaders.includes('b') ? [b, a] : undefined,
    );
    const id = leader.elector.identity;
    expect(follower.started).toHaveLength(0);
    expect(follower.elector.isLeader).toBe(false);
    expect(follower.leaders).toEqual([id]);
    expect(leader.leaders).toEqual([id]);
    const lease = await readLease(ns);
    expect(lease.spec).toMatchObject({ holderIdentity: id, leaseDurationSeconds: 15, leaseTransitions: 0 });
    expect(lease.spec?.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

    // the leader renews: the record changes, the holder does not
    const renewed = await eventually('a renewal', async () => {
      const now = await readLease(ns);
      return now.spec?.renewTime !== lease.spec?.renewTime && now;
    });
    expect(renewed.spec).toMatchObject({ holderIdentity: id, acquireTime: lease.spec?.acquireTime, leaseTransitions: 0 });
    expect(a.started.length + b.started.length).toBe(1);
    expect(leader.stopped).toBe(0);
    expect(leader.started[0].aborted).toBe(false);
  });

  it('hands over at once when the leader stops: it releases the Lease and the other acquires it', async () => {
    const ns = await createNamespace(client, 'handover');
    const a = candidate({ ...steady, connection: replicaConnection(), namespace: ns, name: 'agent', identity: 'a' });
    await eventually('a leading', () => a.started.length);
    // b's clock stands still, so to b a's lease never expires: only a release lets it in
    const clock = new ManualClock();
    const b = candidate({ ...steady, retryJitter: 0, now: clock.now, sleep: clock.sleep, connection: replicaConnection(), namespace: ns, name: 'agent', identity: 'b' });
    await eventually('b to see a and wait', () => b.leaders.includes('a') && clock.sleeping === 1);

    await a.stop();
    expect(a.started[0].aborted).toBe(true);
    expect(a.stopped).toBe(1);
    expect((await readLease(ns)).spec).toMatchObject({ holderIdentity: '', leaseTransitions: 0 });

    await eventually('b leading', () => {
      if (clock.sleeping) clock.advance(steady.retryPeriodMs);
      return b.started.length;
    });
    expect(clock.t).toBeLessThan(steady.leaseDurationMs);
    expect(b.leaders).toEqual(['a', 'b']);
    expect((await readLease(ns)).spec).toMatchObject({ holderIdentity: 'b', leaseDurationSeconds: 15, leaseTransitions: 1 });
  });

  it("releases only once the leading callback's promise has settled, and not at all with releaseOnStop false", async () => {
    const ns = await createNamespace(client, 'release');
    // a's clock stands still, so only the callback settling can end its wait
    const clock = new ManualClock();
    let finish = () => {};
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const a = candidate({ ...steady, now: clock.now, sleep: clock.sleep, connection: replicaConnection(), namespace: ns, name: 'agent', identity: 'a' }, () => finished);
    await eventually('a leading', () => a.started.length && clock.sleeping === 1);
    const stopping = a.stop();
    await eventually("a's leading signal aborted", () => a.started[0].aborted);
    expect((await readLease(ns)).spec?.holderIdentity).toBe('a');
    expect(a.stopped).toBe(0);
    finish();
    await stopping;
    expect(a.stopped).toBe(1);
    expect((await readLease(ns)).spec?.holderIdentity).toBe('');

    const kept = await createNamespace(client, 'release-kept');
    const b = candidate({ ...steady, releaseOnStop: false, connection: replicaConnection(), namespace: kept, name: 'agent', identity: 'b' });
    await eventually('b leading', () => b.started.length);
    await b.stop();
    expect(b.stopped).toBe(1);
    expect((await readLease(kept)).spec?.holderIdentity).toBe('b');
  });

  it('takes over from a killed leader only once its lease has expired; the killed one stops leading at its renew deadline', async () => {
    const ns = await createNamespace(client, 'killed');
    const clock = new ManualClock();
    const aConnection = replicaConnection();
    const a = candidate({ ...fast, retryJitter: 0, now: clock.now, sleep: clock.sleep, connection: aConnection, namespace: ns, name: 'agent', identity: 'a' });
    await eventually('a leading', () => a.started.length && clock.sleeping === 1);
    const b = candidate({ ...fast, connection: replicaConnection(), namespace: ns, name: 'agent', identity: 'b' });
    await eventually('b to see a', () => b.leaders.includes('a'));

    // one renewal by a, then every request of a fails
    const acquired = await readLease(ns);
    clock.advance(fast.retryPeriodMs);
    const last = await eventually('a renewal', async () => {
      const now = await readLease(ns);
      return clock.sleeping === 1 && now.metadata.resourceVersion !== acquired.metadata.resourceVersion && now;
    });
    opened.splice(opened.indexOf(aConnection), 1);
    await aConnection.close();

    // a's next renew fails; once its clock passes the renew deadline it gives leadership up
    clock.advance(fast.retryPeriodMs);
    const failure = await eventually('a failed renew', () => a.errors.find((e) => e.action === 'renew'));
    expect(failure.cause).toBeInstanceOf(KubeApiError);
    expect(a.started[0].aborted).toBe(false);
    await eventually('a waiting to retry', () => clock.sleeping === 1);
    clock.advance(fast.renewDeadlineMs);
    await eventually("a's leading signal aborted", () => a.started[0].aborted);
    expect(a.stopped).toBe(1);
    expect(a.elector.isLeader).toBe(false);

    await eventually('b leading', () => b.started.length);
    const taken = await readLease(ns);
    expect(taken.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    expect(last.spec).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 2 });
    // read from the records: b acquired no sooner than a's last renewal plus the duration a declared
    const gapMs = Date.parse(taken.spec?.acquireTime ?? '') - Date.parse(last.spec?.renewTime ?? '');
    expect(gapMs).toBeGreaterThanOrEqual((last.spec?.leaseDurationSeconds ?? 0) * 1000);
  });

  describe('a concurrent write between read and write (409)', () => {
    /** A LeaseLock whose next update is preceded by another writer taking the Lease. */
    class InterferingLock extends LeaseLock {
      armed = false;
      intruded?: Lease;

      override async update(base: Lease, spec: LeaseSpec, opts?: LeaseCallOptions): Promise<Lease> {
        if (this.armed) {
          this.armed = false;
          const other = new LeaseLock(admin, this.namespace, this.name);
          const now = formatMicroTime(Date.now());
          this.intruded = await other.update(await other.get(), { holderIdentity: 'intruder', leaseDurationSeconds: 15, acquireTime: now, renewTime: now, leaseTransitions: 7 });
        }
        return super.update(base, spec, opts);
      }
    }

    it('is re-read while acquiring, and the other writer keeps the Lease', async () => {
      const ns = await createNamespace(client, 'conflict-acq');
      // a released Lease: the elector will try to take it
      await new LeaseLock(admin, ns, 'agent').create({ holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 3 });
      const lock = new InterferingLock(replicaConnection(), ns, 'agent');
      lock.armed = true;
      const clock = new ManualClock();
      const c = candidate({ ...steady, retryJitter: 0, now: clock.now, sleep: clock.sleep, lock, connection: lock.connection, namespace: ns, name: 'agent', identity: 'c' });

      const conflict = await eventually('the conflict', () => c.errors.find((e) => e.cause instanceof ConflictError));
      expect(conflict.action).toBe('acquire');
      await eventually('c waiting to retry', () => clock.sleeping === 1);
      clock.advance(steady.retryPeriodMs);
      await eventually('c to see the intruder', () => c.leaders.includes('intruder') && clock.sleeping === 1);

      expect(c.started).toHaveLength(0);
      const lease = await readLease(ns);
      expect(lease.metadata.resourceVersion).toBe(lock.intruded?.metadata.resourceVersion);
      expect(lease.spec).toMatchObject({ holderIdentity: 'intruder', leaseTransitions: 7 });
    });

    it('while renewing makes the leader re-read and step down at once, keeping the other writer', async () => {
      const ns = await createNamespace(client, 'conflict-renew');
      const lock = new InterferingLock(replicaConnection(), ns, 'agent');
      const clock = new ManualClock();
      const c = candidate({ ...steady, retryJitter: 0, now: clock.now, sleep: clock.sleep, lock, connection: lock.connection, namespace: ns, name: 'agent', identity: 'c' });
      await eventually('c leading', () => c.started.length && clock.sleeping === 1);

      lock.armed = true;
      clock.advance(steady.retryPeriodMs);
      await eventually("c's leading signal aborted", () => c.started[0].aborted);
      expect(c.stopped).toBe(1);
      expect(c.leaders).toEqual(['c', 'intruder']);
      // well before c's renew deadline: it did not wait for it
      expect(clock.t).toBeLessThan(steady.renewDeadlineMs);

      await eventually('c campaigning again', () => clock.sleeping === 1);
      const lease = await readLease(ns);
      expect(lease.metadata.resourceVersion).toBe(lock.intruded?.metadata.resourceVersion);
      expect(lease.spec).toMatchObject({ holderIdentity: 'intruder', leaseTransitions: 7 });
    });
  });
});
