import { isLoopbackHost } from '@flotilla/egress';
import { SinkDeliveryError } from './errors';
import { type BindingMode, toHttpMessage } from './http-binding';
import type { CDEvent } from './types';

/** Where a Project's events go: the URL and an optional secret header (`Authorization: Bearer …`, `X-Api-Key: …`). */
export interface SinkTarget {
  url: string;
  header?: { name: string; value: string };
}

export interface SinkPostOptions {
  mode: BindingMode;
  /** total time for the request and its answer */
  deadlineMs: number;
  /** the hub passes its egress-checked fetch (plain http only to loopback for sinks with a header) */
  fetch?: typeof fetch;
}

export function defaultSinkPostOptions(): SinkPostOptions {
  return { mode: 'binary', deadlineMs: 10_000 };
}

/**
 * Bytes of a sink's answer read (so a short answer leaves the connection reusable);
 * a longer answer is cut off. The answer itself never goes into the error: a sink URL
 * may name any server, whose body is not the hub's users' to read.
 */
export const SINK_ANSWER_READ_LIMIT = 16 * 1024;

/** POSTs one CDEvent as a CloudEvent; resolves on 2xx, throws SinkDeliveryError otherwise. */
export async function postCdevent(sink: SinkTarget, event: CDEvent, options: SinkPostOptions = defaultSinkPostOptions()): Promise<void> {
  const { headers, body } = toHttpMessage(event, options.mode);
  if (sink.header) {
    // the header is a secret: it never crosses a network in clear
    const url = parseUrl(sink.url);
    if (url?.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
      throw new SinkDeliveryError(`POST ${sink.url}: plain http:// with a secret header is only allowed to loopback; use https://`);
    }
    headers[sink.header.name] = sink.header.value;
  }
  const signal = AbortSignal.timeout(options.deadlineMs);
  let res: Response;
  try {
    res = await (options.fetch ?? fetch)(sink.url, { method: 'POST', headers, body, signal, redirect: 'error' });
  } catch (err) {
    const why = signal.aborted ? `no answer within ${options.deadlineMs} ms` : describe(err);
    throw new SinkDeliveryError(`POST ${sink.url}: ${why}`, undefined, { cause: err });
  }
  // read a bounded part of the answer under the same deadline, so the connection is reused
  await drainBounded(res, SINK_ANSWER_READ_LIMIT);
  if (!res.ok) throw new SinkDeliveryError(`POST ${sink.url}: HTTP ${res.status}`, res.status);
}

/** Reads at most `limit` bytes of the body, then cancels the rest; errors end the read quietly. */
export async function drainBounded(res: Response, limit: number): Promise<void> {
  const reader = res.body?.getReader();
  if (!reader) return;
  let read = 0;
  try {
    while (read <= limit) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
    }
    await reader.cancel();
  } catch {
    await reader.cancel().catch(() => undefined);
  }
}

function parseUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** `fetch failed: connect ECONNREFUSED …`: the error and its cause (checked by shape: errors may come from another realm). */
export function describe(err: unknown): string {
  const text = (e: unknown) => (typeof e === 'object' && e !== null && 'message' in e ? String((e as { message: unknown }).message) : String(e));
  const cause = typeof err === 'object' && err !== null && 'cause' in err && (err as { cause: unknown }).cause !== undefined ? `: ${text((err as { cause: unknown }).cause)}` : '';
  return `${text(err)}${cause}`;
}
