// A JSON POST to a chat webhook (Slack-compatible), sent beside the CDEvents
// and with their delivery rules. The URL is the credential: it never crosses
// a network in clear, and errors name only its scheme and host.
import { isLoopbackHost } from '@flotilla/egress';
import { SinkDeliveryError } from './errors';
import { describe, drainBounded, SINK_ANSWER_READ_LIMIT } from './sink-post';

export interface WebhookTarget {
  /** the whole URL (secret) */
  url: string;
  /** what errors and logs may say of it: scheme and host */
  shown: string;
}

export interface WebhookPostOptions {
  /** total time for the request and its answer */
  deadlineMs: number;
  /** the hub passes its egress-checked fetch for requests that carry a secret */
  fetch?: typeof fetch;
}

/** POSTs `body` as JSON; resolves on 2xx, throws SinkDeliveryError (naming `shown`, never the URL) otherwise. Redirects are not followed. */
export async function postWebhook(target: WebhookTarget, body: object, options: WebhookPostOptions): Promise<void> {
  let url: URL;
  try {
    url = new URL(target.url);
  } catch (err) {
    throw new SinkDeliveryError(`POST ${target.shown}: not a URL`, undefined, { cause: err });
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw new SinkDeliveryError(`POST ${target.shown}: a webhook URL is a secret: only https:// (or http:// to loopback) is used`);
  }
  const signal = AbortSignal.timeout(options.deadlineMs);
  let res: Response;
  try {
    res = await (options.fetch ?? fetch)(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal, redirect: 'error' });
  } catch (err) {
    // the cause may quote the URL (a redirect's error does): only the deadline or the bare error kind is told
    const why = signal.aborted ? `no answer within ${options.deadlineMs} ms` : redact(describe(err), target.url);
    throw new SinkDeliveryError(`POST ${target.shown}: ${why}`);
  }
  await drainBounded(res, SINK_ANSWER_READ_LIMIT);
  if (!res.ok) throw new SinkDeliveryError(`POST ${target.shown}: HTTP ${res.status}`, res.status);
}

/** `text` without the secret URL or its path, wherever they appear. */
function redact(text: string, secret: string): string {
  let out = text.split(secret).join('(webhook URL)');
  try {
    const { pathname, search } = new URL(secret);
    if (pathname.length > 1) out = out.split(pathname).join('/…');
    if (search.length > 1) out = out.split(search).join('?…');
  } catch {
    // not a URL: the whole value was cut above
  }
  return out;
}
