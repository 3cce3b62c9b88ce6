// A chat webhook's URL is its credential: it goes only over https (or to
// loopback), redirects are not followed, and errors name scheme and host only.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SinkDeliveryError } from './errors';
import { postWebhook } from './webhook-post';

let server: Server;
let base: string;
const received: Array<{ url: string; type: string | undefined; body: string }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ url: req.url ?? '', type: req.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') });
      if (req.url?.startsWith('/moved')) {
        res.writeHead(302, { location: `${base}/hooks/T000/B000/other` });
        res.end();
      } else if (req.url?.startsWith('/broken')) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('internal');
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('postWebhook', () => {
  it('POSTs the body as JSON to the whole URL', async () => {
    await postWebhook({ url: `${base}/hooks/T000/B000/XXXX`, shown: `${base}/…` }, { text: 'hello' }, { deadlineMs: 5000 });
    expect(received.at(-1)).toEqual({ url: '/hooks/T000/B000/XXXX', type: 'application/json', body: '{"text":"hello"}' });
  });

  it('follows no redirect and names only what may be shown', async () => {
    const before = received.length;
    const err = await postWebhook({ url: `${base}/moved/SECRET-PATH`, shown: `${base}/…` }, { text: 'x' }, { deadlineMs: 5000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SinkDeliveryError);
    expect((err as Error).message.startsWith(`POST ${base}/…: `)).toBe(true);
    expect((err as Error).message).not.toContain('SECRET-PATH');
    expect(received.slice(before).map((r) => r.url)).toEqual(['/moved/SECRET-PATH']);
  });

  it('fails on an error answer with its status, without the URL', async () => {
    const err = (await postWebhook({ url: `${base}/broken/SECRET-PATH`, shown: `${base}/…` }, { text: 'x' }, { deadlineMs: 5000 }).catch((e: unknown) => e)) as SinkDeliveryError;
    expect(err.status).toBe(500);
    expect(err.message).toBe(`POST ${base}/…: HTTP 500`);
  });

  it('sends nothing over plain http beyond loopback', async () => {
    const err = (await postWebhook({ url: 'http://chat.example/hooks/SECRET-PATH', shown: 'http://chat.example/…' }, { text: 'x' }, { deadlineMs: 5000 }).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(SinkDeliveryError);
    expect(err.message).toBe('POST http://chat.example/…: a webhook URL is a secret: only https:// (or http:// to loopback) is used');
  });
});
