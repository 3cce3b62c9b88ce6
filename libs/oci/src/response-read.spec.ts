import { Readable } from 'node:stream';
import { ContentTooLargeError } from './errors';
import { ByteLimit, readLimited } from './response-read';

/** A response streaming `chunks`, recording whether its body was cancelled and how many chunks were pulled. */
function response(chunks: Buffer[], headers: Record<string, string> = {}) {
  const state = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const next = chunks[state.pulled++];
        if (next) controller.enqueue(next);
        else controller.close();
      },
      cancel() {
        state.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { res: new Response(body, { headers }), state };
}

describe('readLimited', () => {
  it('reads a body of exactly the limit', async () => {
    const { res } = response([Buffer.from('abc'), Buffer.from('de')]);
    expect((await readLimited(res, 5, 'thing')).toString()).toBe('abcde');
  });

  it('refuses on Content-Length before reading, naming what, the limit and the offer', async () => {
    const { res, state } = response([Buffer.from('abcdef')], { 'content-length': '6' });
    const err = await readLimited(res, 5, 'manifest r/a:v1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContentTooLargeError);
    expect(err).toMatchObject({ what: 'manifest r/a:v1', limit: 5, offered: 6, received: 0 });
    expect(state).toEqual({ pulled: 0, cancelled: true });
  });

  it('stops at the chunk that passes the limit and cancels the rest', async () => {
    const { res, state } = response([Buffer.from('abc'), Buffer.from('def'), Buffer.from('ghi')]);
    const err = await readLimited(res, 5, 'x').catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'ContentTooLargeError', offered: undefined, received: 6 });
    expect(state).toEqual({ pulled: 2, cancelled: true });
  });
});

describe('ByteLimit', () => {
  it('passes up to the limit and fails the stream past it', async () => {
    const ok = Readable.from([Buffer.from('abc')]).pipe(new ByteLimit(3, 'blob'));
    for await (const _ of ok) void _;
    const over = Readable.from([Buffer.from('abc'), Buffer.from('d')]).pipe(new ByteLimit(3, 'blob'));
    await expect((async () => { for await (const _ of over) void _; })()).rejects.toBeInstanceOf(ContentTooLargeError);
  });
});
