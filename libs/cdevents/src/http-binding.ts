// CDEvents travel as CloudEvents; the SDK's HTTP binding writes and reads
// both modes. The CloudEvent carries the CDEvent's id, source, type and
// time, and the whole CDEvent as its JSON data (the CDEvents binding).
import { CloudEvent, HTTP, ValidationError, type Headers } from 'cloudevents';
import { CdeventsRequestError } from './errors';
import type { CDEvent } from './types';

export type BindingMode = 'binary' | 'structured';

/** Headers and body to POST `event` in `mode`. */
export function toHttpMessage(event: CDEvent, mode: BindingMode = 'binary'): { headers: Record<string, string>; body: string } {
  const cloudEvent = new CloudEvent<CDEvent>({
    specversion: '1.0',
    id: event.context.id,
    source: event.context.source,
    type: event.context.type,
    time: event.context.timestamp,
    datacontenttype: 'application/json',
    data: event,
  });
  const message = mode === 'binary' ? HTTP.binary(cloudEvent) : HTTP.structured(cloudEvent);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(message.headers)) if (typeof v === 'string') headers[k] = v;
  return { headers, body: typeof message.body === 'string' ? message.body : JSON.stringify(message.body) };
}

/**
 * The CDEvent in a request: a CloudEvent in either mode (the SDK reads it),
 * or a bare CDEvent posted as JSON (what a pipeline step with curl sends).
 */
export function fromHttpMessage(headers: Headers, body: string): unknown {
  const message = { headers, body };
  if (!HTTP.isEvent(message)) {
    if (!isJsonContentType(headers['content-type'])) throw new CdeventsRequestError(415, 'expected a CloudEvent (binary or structured mode) or a CDEvent as application/json');
    return parseJson(body);
  }
  let event: CloudEvent<unknown>;
  try {
    const read = HTTP.toEvent<unknown>(message);
    if (Array.isArray(read)) throw new CdeventsRequestError(400, 'batched CloudEvents are not accepted: send one event per request');
    event = read as CloudEvent<unknown>;
  } catch (err) {
    if (err instanceof CdeventsRequestError) throw err;
    const why = err instanceof ValidationError ? `${err.message}${err.errors?.length ? `: ${JSON.stringify(err.errors).slice(0, 300)}` : ''}` : err instanceof Error ? err.message : String(err);
    throw new CdeventsRequestError(400, `not a valid CloudEvent: ${why}`, { cause: err });
  }
  const data = typeof event.data === 'string' ? parseJson(event.data) : event.data instanceof Uint8Array ? parseJson(Buffer.from(event.data).toString('utf8')) : event.data;
  if (data === undefined) throw new CdeventsRequestError(400, `CloudEvent ${event.id} has no data: the CDEvent is its JSON data`);
  return data;
}

function isJsonContentType(value: string | string[] | undefined): boolean {
  const v = (Array.isArray(value) ? value[0] : value)?.split(';')[0].trim().toLowerCase();
  return v === 'application/json' || (v !== undefined && v.startsWith('application/') && v.endsWith('+json'));
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch (err) {
    throw new CdeventsRequestError(400, `body is not JSON: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}
