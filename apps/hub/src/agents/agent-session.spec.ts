import type { ConnectRequest, ConnectResponse } from '@flotilla/agent-protocol';
import type { RunReport } from '@flotilla/engine';
import type { ServerDuplexStream } from '@grpc/grpc-js';
import { AgentGoneError, AgentSession } from './agent-session';

/** A session over a stream that takes every write (these tests look only at the reports). */
function session(): { s: AgentSession } {
  const stream = { write: () => true, end: () => undefined } as unknown as ServerDuplexStream<ConnectRequest, ConnectResponse>;
  return { s: new AgentSession({ clusterId: 'c1', clusterName: 'edge-1' } as never, 'fp', stream) };
}

const report = (id: string) => ({ report: { ok: true } as RunReport, reportId: id });
const never = new AbortController().signal;

describe('AgentSession reports', () => {
  it('hands a report that came before the run waited to that run, and refuses a second one', async () => {
    const { s } = session();
    s.expectReport('t1', 3);
    expect(s.expects('t1', 3)).toBe(true);
    expect(s.expects('t1', 4)).toBe(false);
    expect(s.offerReport('t1', 3, report('r1'))).toBe(true);
    expect(s.offerReport('t1', 3, report('r2'))).toBe(false);
    await expect(s.waitForReport('t1', 3, never, 60_000)).resolves.toMatchObject({ reportId: 'r1' });
    // taken: a later report is nobody's here (the stream stores it as a run of its own)
    expect(s.offerReport('t1', 3, report('r3'))).toBe(false);
  });

  it('takes a report of a later generation, not of an earlier one', async () => {
    const { s } = session();
    const waiting = s.waitForReport('t1', 5, never, 60_000);
    expect(s.offerReport('t1', 4, report('old'))).toBe(false);
    expect(s.offerReport('t1', 6, report('new'))).toBe(true);
    await expect(waiting).resolves.toMatchObject({ reportId: 'new' });
  });

  it('ends the wait of an older assignment when a newer one is expected', async () => {
    const { s } = session();
    const older = s.waitForReport('t1', 1, never, 60_000);
    s.expectReport('t1', 2);
    await expect(older).rejects.toThrow('a newer assignment replaced this one');
  });

  it('rejects what it expects when the stream closes, and later expectations at once', async () => {
    const { s } = session();
    s.expectReport('t1', 1);
    const waiting = s.waitForReport('t1', 1, never, 60_000);
    s.close('bye');
    await expect(waiting).rejects.toBeInstanceOf(AgentGoneError);
    await expect(s.waitForReport('t2', 1, never, 60_000)).rejects.toThrow('edge-1 disconnected before it reported');
  });

  it('ends the wait when the run is aborted or its time runs out, and forgets it', async () => {
    const { s } = session();
    const aborted = new AbortController();
    const waiting = s.waitForReport('t1', 1, aborted.signal, 60_000);
    aborted.abort();
    await expect(waiting).rejects.toThrow('disconnected before it reported');
    expect(s.expects('t1', 1)).toBe(false);
    await expect(s.waitForReport('t2', 1, never, 1)).rejects.toThrow('no report from the agent of cluster edge-1 within 1 ms');
    expect(s.offerReport('t2', 1, report('late'))).toBe(false);
  });
});
