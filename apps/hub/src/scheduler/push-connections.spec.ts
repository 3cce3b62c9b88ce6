import type { ClusterConnection, ClusterCredentials } from '@flotilla/kube';
import { PushConnections } from './push-connections';

/** Stand-ins that only count their closing: the pool never sends a request itself. */
function pool(options = { idleMs: 1_000, maxIdle: 2 }) {
  const opened: { credentials: ClusterCredentials; closed: number }[] = [];
  const connections = new PushConnections((credentials) => {
    const c = { credentials, closed: 0 };
    opened.push(c);
    return { close: async () => void c.closed++ } as unknown as ClusterConnection;
  }, options);
  return { connections, opened };
}

const creds = (token: string, server = 'https://10.0.0.1:6443'): ClusterCredentials => ({ server, token });

describe('PushConnections', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it("reuses a cluster's connection for the same credentials, held or not", () => {
    const { connections, opened } = pool();
    const a = connections.lease('c1', creds('t'));
    const b = connections.lease('c1', creds('t'));
    expect(b.connection).toBe(a.connection);
    a.release();
    b.release();
    const c = connections.lease('c1', creds('t'));
    expect(c.connection).toBe(a.connection);
    expect(opened).toHaveLength(1);
    expect(opened[0]!.closed).toBe(0);
  });

  it('opens a new connection for new credentials or a new endpoint, and closes the old one once its holder lets go', () => {
    const { connections, opened } = pool();
    const old = connections.lease('c1', creds('t'));
    const rotated = connections.lease('c1', creds('t2'));
    expect(rotated.connection).not.toBe(old.connection);
    expect(opened[0]!.closed).toBe(0); // still in use by `old`
    old.release();
    expect(opened[0]!.closed).toBe(1);
    const moved = connections.lease('c1', creds('t2', 'https://10.0.0.2:6443'));
    expect(moved.connection).not.toBe(rotated.connection);
    rotated.release();
    expect(opened.map((o) => o.closed)).toEqual([1, 1, 0]);
    expect(connections.size).toBe(1);
  });

  it('keeps clusters apart even with the same credentials', () => {
    const { connections } = pool();
    expect(connections.lease('c1', creds('t')).connection).not.toBe(connections.lease('c2', creds('t')).connection);
  });

  it('closes a connection nobody held for the idle time, and not one still held', () => {
    const { connections, opened } = pool({ idleMs: 1_000, maxIdle: 10 });
    connections.lease('c1', creds('t')).release();
    const held = connections.lease('c2', creds('t'));
    jest.advanceTimersByTime(999);
    expect(opened.map((o) => o.closed)).toEqual([0, 0]);
    jest.advanceTimersByTime(1);
    expect(opened.map((o) => o.closed)).toEqual([1, 0]);
    expect(connections.size).toBe(1);
    // taken again before its time: the timer starts over when it is given back
    connections.lease('c2', creds('t')).release();
    jest.advanceTimersByTime(10_000);
    expect(opened[1]!.closed).toBe(0);
    held.release();
    jest.advanceTimersByTime(1_000);
    expect(opened[1]!.closed).toBe(1);
  });

  it('keeps at most maxIdle unused connections, closing the least recently used', () => {
    const { connections, opened } = pool({ idleMs: 60_000, maxIdle: 2 });
    for (const id of ['c1', 'c2', 'c3']) connections.lease(id, creds('t')).release();
    expect(opened.map((o) => o.closed)).toEqual([1, 0, 0]);
    connections.lease('c2', creds('t')).release(); // c2 is now the most recently used
    connections.lease('c4', creds('t')).release();
    expect(opened.map((o) => o.closed)).toEqual([1, 0, 1, 0]);
  });

  it('a lease released twice gives back one hold', () => {
    const { connections, opened } = pool({ idleMs: 1_000, maxIdle: 10 });
    const a = connections.lease('c1', creds('t'));
    const b = connections.lease('c1', creds('t'));
    a.release();
    a.release();
    jest.advanceTimersByTime(5_000);
    expect(opened[0]!.closed).toBe(0);
    b.release();
    jest.advanceTimersByTime(1_000);
    expect(opened[0]!.closed).toBe(1);
  });

  it('on close, closes unused connections at once and held ones as they are given back; keeps none after', async () => {
    const { connections, opened } = pool();
    connections.lease('c1', creds('t')).release();
    const held = connections.lease('c2', creds('t'));
    await connections.close();
    expect(opened.map((o) => o.closed)).toEqual([1, 0]);
    held.release();
    expect(opened.map((o) => o.closed)).toEqual([1, 1]);
    // a run still finishing (or its events) gets a connection of its own that closes with its release
    const late = connections.lease('c1', creds('t'));
    expect(opened).toHaveLength(3);
    expect(connections.size).toBe(0);
    late.release();
    expect(opened[2]!.closed).toBe(1);
  });
});
