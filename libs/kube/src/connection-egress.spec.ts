// The connection under an egress policy, and what of a server's error answer reaches
// users: a real listener on loopback stands in for whatever the cluster's server names.
import { EgressPolicy, EgressRefusedError } from '@flotilla/egress';
import { startLoopback, type Loopback } from '../testdata/loopback-server';
import { MAX_STATUS_MESSAGE } from './api-status';
import { ClusterConnection } from './connection';
import { ConnectionConfigError, KubeApiError } from './errors';

const MARKER = 'SECRET-METADATA-BODY';
let loopback: Loopback;
let hits = 0;

beforeAll(async () => {
  loopback = await startLoopback((req, res) => {
    hits++;
    if (req.url === '/status') {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403, message: `forbidden: User "x" cannot get resource "pods" ${'y'.repeat(5000)}${MARKER}` }));
      return;
    }
    if (req.url === '/json') {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: MARKER, token: MARKER }));
      return;
    }
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end(`${MARKER}\n`.repeat(1000));
  });
});

afterAll(() => loopback.close());

const loopbackAllowed = new EgressPolicy({ allow: [], deny: [], allowLoopback: true });

function errorOf(p: Promise<unknown>): Promise<KubeApiError> {
  return p.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (e: unknown) => e as KubeApiError,
  );
}

describe('ClusterConnection egress policy', () => {
  it('refuses a server on loopback when the policy does not allow loopback, without connecting', async () => {
    const before = hits;
    const conn = ClusterConnection.create({ server: loopback.url, token: 't' }, { egress: new EgressPolicy({ allow: [], deny: [], allowLoopback: false }) });
    try {
      const err = await errorOf(conn.request({ method: 'GET', path: '/version' }));
      expect(err).toBeInstanceOf(KubeApiError);
      expect(err.cause).toBeInstanceOf(EgressRefusedError);
      expect(err.message).toContain('is loopback, which the egress policy does not allow');
      expect(hits).toBe(before);
    } finally {
      await conn.close();
    }
  });

  it('refuses localhost by the address it resolves to when loopback addresses are denied', async () => {
    const port = new URL(loopback.url).port;
    const conn = ClusterConnection.create({ server: `http://localhost:${port}`, token: 't' }, { egress: new EgressPolicy({ allow: [], deny: ['127.0.0.0/8', '::1'], allowLoopback: true }) });
    try {
      const err = await errorOf(conn.request({ method: 'GET', path: '/version' }));
      expect(err.cause).toBeInstanceOf(EgressRefusedError);
      expect(err.message).toContain('is on the egress deny list');
    } finally {
      await conn.close();
    }
  });

  it('refuses plain http to a host that is not loopback when it is created', () => {
    expect(() => ClusterConnection.create({ server: 'http://10.0.0.1:6443', token: 't' })).toThrow(ConnectionConfigError);
    expect(() => ClusterConnection.create({ server: 'http://10.0.0.1:6443', token: 't' })).toThrow('plain http:// is only allowed to loopback');
  });
});

describe('ClusterConnection error answers', () => {
  let conn: ClusterConnection;
  beforeAll(() => (conn = ClusterConnection.create({ server: loopback.url, token: 't' }, { egress: loopbackAllowed })));
  afterAll(() => conn.close());

  it('keeps a Kubernetes Status reason and a bounded message', async () => {
    const err = await errorOf(conn.request({ method: 'GET', path: '/status' }));
    expect(err.statusCode).toBe(403);
    expect(err.reason).toBe('Forbidden');
    expect(err.message).toContain('forbidden: User "x" cannot get resource "pods"');
    expect(err.message).not.toContain(MARKER);
    expect(err.status!.message!.length).toBeLessThanOrEqual(MAX_STATUS_MESSAGE + 1);
  });

  it('never echoes a body that is not a Status', async () => {
    for (const path of ['/text', '/json']) {
      const err = await errorOf(conn.request({ method: 'GET', path }));
      expect(err.statusCode).toBe(500);
      expect(err.message).not.toContain(MARKER);
      expect(JSON.stringify(err.status)).not.toContain(MARKER);
      expect(err.message).toContain('not a Kubernetes Status');
    }
  });

  it('never echoes a body that is not a Status from a stream either', async () => {
    const err = await errorOf((async () => {
      for await (const _ of conn.stream({ method: 'GET', path: '/text' })) void _;
    })());
    expect(err.statusCode).toBe(500);
    expect(err.message).not.toContain(MARKER);
  });
});
