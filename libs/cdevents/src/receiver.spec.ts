import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toHttpMessage } from './http-binding';
import { cdeventsReceiver, type MatchedProject, type ReceiverBackend, type ReceiverOutcome } from './receiver';
import { signBody } from './signature';
import { specExample } from './test-support';
import type { ArtifactPublished, CDEvent } from './types';

const SECRET = 'receiver-secret';

/** An in-memory backend: one Project on 127.0.0.1:5000/acme/shop. */
class MemoryBackend implements ReceiverBackend {
  readonly seen = new Set<string>();
  readonly triggered: Array<{ projects: string[]; id: string }> = [];
  async projectsFor(e: ArtifactPublished): Promise<MatchedProject[]> {
    return e.artifact.repository === '127.0.0.1:5000/acme/shop' ? [{ id: 'p1', name: 'shop' }] : [];
  }
  async firstDelivery(e: ArtifactPublished): Promise<boolean> {
    const key = `${e.source}\u0000${e.id}`;
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    return true;
  }
  trigger(projects: MatchedProject[], e: ArtifactPublished): void {
    this.triggered.push({ projects: projects.map((p) => p.id), id: e.id });
  }
}

function published(id: string, repositoryUrl = '127.0.0.1%3A5000/acme/shop'): CDEvent {
  const e = specExample('v0.5.1/conformance/artifact_published.json') as unknown as CDEvent;
  e.context.id = id;
  e.subject.id = `pkg:oci/shop@sha256%3Aab?repository_url=${repositoryUrl}`;
  return e;
}

describe('cdeventsReceiver over HTTP', () => {
  let server: Server;
  let url: string;
  const backend = new MemoryBackend();
  const outcomes: ReceiverOutcome[] = [];

  beforeAll(async () => {
    server = createServer(cdeventsReceiver({ secrets: [SECRET], maxBodyBytes: 4096, backend, observe: (o) => outcomes.push(o) }));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const post = async (body: string, headers: Record<string, string>) => {
    const res = await fetch(url, { method: 'POST', body, headers });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const signed = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) => post(body, { ...headers, 'x-flotilla-signature': signBody(SECRET, body) });

  it('accepts a signed artifact published in binary mode, and triggers its Project once', async () => {
    const { headers, body } = toHttpMessage(published('ev-1'), 'binary');
    expect(await signed(body, headers)).toEqual({ status: 202, body: { projects: ['shop'], message: '1 Project(s) resolve 127.0.0.1:5000/acme/shop now' } });
    expect(backend.triggered).toEqual([{ projects: ['p1'], id: 'ev-1' }]);
  });

  it('accepts structured mode and a bare CDEvent with a bearer token', async () => {
    const structured = toHttpMessage(published('ev-2'), 'structured');
    expect((await signed(structured.body, structured.headers)).status).toBe(202);
    expect((await post(JSON.stringify(published('ev-3')), { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` })).status).toBe(202);
    expect(backend.triggered.map((t) => t.id)).toEqual(['ev-1', 'ev-2', 'ev-3']);
  });

  it('accepts a replayed id once: the replay is answered 200 and triggers nothing', async () => {
    const body = JSON.stringify(published('ev-1'));
    expect(await signed(body)).toEqual({ status: 200, body: { duplicate: true, message: 'event ev-1 from /event/source/123 was already received; ignored' } });
    expect(backend.triggered).toHaveLength(3);
  });

  it('answers 401 to a bad signature, a wrong token and no authentication, and changes nothing', async () => {
    const body = JSON.stringify(published('ev-4'));
    expect(await post(body, { 'content-type': 'application/json', 'x-flotilla-signature': signBody('wrong', body) })).toEqual({ status: 401, body: { error: 'Unauthorized', message: 'bad signature or token' } });
    expect((await post(body, { 'content-type': 'application/json', authorization: 'Bearer nope' })).status).toBe(401);
    expect((await post(body, { 'content-type': 'application/json' })).body.message).toMatch(/^missing authentication/);
    expect(backend.triggered).toHaveLength(3);
    expect(backend.seen.has('/event/source/123\u0000ev-4')).toBe(false);
  });

  it('answers 422 to another event type and to a repository no Project names, without recording the id', async () => {
    const deployed = JSON.stringify(specExample('v0.5.1/conformance/service_deployed.json'));
    expect(await signed(deployed)).toEqual({ status: 422, body: { error: 'Unprocessable Entity', message: expect.stringContaining('event type dev.cdevents.service.deployed.0.3.0 is not handled') } });
    const unknown = await signed(JSON.stringify(published('ev-5', 'ghcr.io/acme/other')));
    expect(unknown).toEqual({ status: 422, body: { error: 'Unprocessable Entity', message: 'no Project has repository ghcr.io/acme/other/shop as its source; nothing to reconcile' } });
    expect(backend.seen.has('/event/source/123\u0000ev-5')).toBe(false);
    expect(backend.triggered).toHaveLength(3);
  });

  it('refuses bodies over the limit (413), other methods (405) and other media types (415)', async () => {
    const big = JSON.stringify({ ...published('ev-6'), customData: { pad: 'x'.repeat(5000) } });
    expect((await signed(big)).status).toBe(413);
    const res = await fetch(url);
    expect(res.status).toBe(405);
    expect((await signed('hello', { 'content-type': 'text/plain' })).status).toBe(415);
    expect(outcomes.filter((o) => o === 'accepted')).toHaveLength(3);
    expect(outcomes).toEqual(expect.arrayContaining(['duplicate', 'unauthorized', 'rejected']));
  });
});
