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
  fetch?: typeof fetch;
}

export function defaultSinkPostOptions(): SinkPostOptions {
  return { mode: 'binary', deadlineMs: 10_000 };
}

/** How much of a refusing sink's answer is kept in the error. */
const ANSWER_LIMIT = 300;

/** POSTs one CDEvent as a CloudEvent; resolves on 2xx, throws SinkDeliveryError otherwise. */
export async function postCdevent(sink: SinkTarget, event: CDEvent, options: SinkPostOptions = defaultSinkPostOptions()): Promise<void> {
  const { headers, body } = toHttpMessage(event, options.mode);
  if (sink.header) headers[sink.header.name] = sink.header.value;
  const signal = AbortSignal.timeout(options.deadlineMs);
  let res: Response;
  try {
    res = await (options.fetch ?? fetch)(sink.url, { method: 'POST', headers, body, signal, redirect: 'error' });
  } catch (err) {
    const why = signal.aborted ? `no answer within ${options.deadlineMs} ms` : describe(err);
    throw new SinkDeliveryError(`POST ${sink.url}: ${why}`, undefined, { cause: err });
  }
  // read (and bound) the answer under the same deadline, so the connection is reused
  const answer = await res.text().catch(() => '');
  if (!res.ok) throw new SinkDeliveryError(`POST ${sink.url}: HTTP ${res.status}${answer ? `: ${answer.slice(0, ANSWER_LIMIT)}` : ''}`, res.status);
}

/** `fetch failed: connect ECONNREFUSED …`: the error and its cause (checked by shape: errors may come from another realm). */
function describe(err: unknown): string {
  const text = (e: unknown) => (typeof e === 'object' && e !== null && 'message' in e ? String((e as { message: unknown }).message) : String(e));
  const cause = typeof err === 'object' && err !== null && 'cause' in err && (err as { cause: unknown }).cause !== undefined ? `: ${text((err as { cause: unknown }).cause)}` : '';
  return `${text(err)}${cause}`;
}
