import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaultSinkPostOptions } from '@flotilla/cdevents';
import { eventually } from '../../../../libs/kube/testdata/eventually';
import type { Logger } from '../logging/logger';
import { AgentCdeventsEmitter } from './cdevents-emitter';

// A real HTTP sink that refuses until told to accept: the in-memory outbox
// (no store) keeps the newest events past its bound, counts the drop, and
// delivers the rest in order with the header read for each attempt.

const quiet: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describe('AgentCdeventsEmitter', () => {
  let server: Server;
  let accept = false;
  const received: Array<{ id: string; headers: IncomingHttpHeaders }> = [];
  let url: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (accept) received.push({ id: String(req.headers['ce-id']), headers: req.headers });
        res.writeHead(accept ? 202 : 503).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
  });

  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('drops the oldest past the bound, counts it, and delivers the rest in order with the header', async () => {
    const dropped: number[] = [];
    let retried = 0;
    const reads: string[] = [];
    const emitter = new AgentCdeventsEmitter({
      source: '/flotilla/agent/test',
      backoff: { initialMs: 5, factor: 2, maxMs: 20, maxAttempts: 10_000 },
      post: defaultSinkPostOptions(),
      maxQueued: 3,
      log: quiet,
      readHeader: async (ns, ref) => {
        reads.push(`${ns}/${ref.secretKeyRef.name}/${ref.secretKeyRef.key}`);
        return 'Bearer t0ken';
      },
      observer: { attempt: (r) => void (r === 'retried' && retried++), dropped: (n) => void dropped.push(n), outboxWriteFailed: () => undefined, pending: () => undefined },
    });
    const abort = new AbortController();
    await emitter.resume(abort.signal);
    const header = { name: 'Authorization', secretKeyRef: { name: 'sink', key: 'token' } };
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      await emitter.emit('team-a/shop', { sink: url, header }, { kind: 'environment.modified', reason: 'SpecChanged', message: `change ${i}`, project: { name: 'shop', namespace: 'team-a' }, repository: 'oci://r/shop', cluster: 'c' });
    }
    expect(emitter.pending()).toBe(3);
    expect(dropped.reduce((a, b) => a + b, 0)).toBe(2);
    await eventually('a refused attempt', () => retried > 0, 10_000);
    accept = true;
    await eventually('three events delivered', () => received.length >= 3, 10_000);
    await eventually('the outbox emptied', () => emitter.pending() === 0, 10_000);
    expect(received.map((r) => r.headers.authorization)).toEqual(Array(3).fill('Bearer t0ken'));
    expect(new Set(received.map((r) => r.id)).size).toBe(3);
    expect(reads.every((r) => r === 'team-a/sink/token')).toBe(true);
    ids.push(...received.map((r) => r.id));
    abort.abort();
    // no longer leading: nothing is accepted
    await emitter.emit('team-a/shop', { sink: url }, { kind: 'environment.deleted', reason: 'ProjectDeleted', message: 'gone', project: { name: 'shop', namespace: 'team-a' }, repository: 'oci://r/shop', cluster: 'c' });
    expect(emitter.pending()).toBe(0);
    await emitter.stop();
    expect(ids).toHaveLength(3);
  });
});
