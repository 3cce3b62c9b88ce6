// Server-Sent Events read with fetch, so the token travels in the
// Authorization header (EventSource cannot send headers and would need it in
// the URL). Each `change` event tells the page to reload what it shows.

import { authHeaders } from './api';

export type LiveState = 'connecting' | 'live' | 'offline';

const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 30_000;

/** Follows /api/v1/fleet/events until `signal` aborts, reconnecting with backoff. */
export async function followFleet(token: string, signal: AbortSignal, onState: (s: LiveState) => void, onChange: () => void): Promise<void> {
  let retry = RETRY_MIN_MS;
  while (!signal.aborted) {
    onState('connecting');
    try {
      const res = await fetch('/api/v1/fleet/events', { headers: { ...authHeaders(token), accept: 'text/event-stream' }, signal });
      if (!res.ok || !res.body) throw new Error(`stream refused: ${res.status}`);
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const event = /^event: (\w+)$/m.exec(buffer.slice(0, end))?.[1];
          buffer = buffer.slice(end + 2);
          if (event === 'hello') {
            retry = RETRY_MIN_MS;
            onState('live');
            // whatever changed while the stream was down
            onChange();
          } else if (event === 'change') onChange();
        }
      }
    } catch {
      if (signal.aborted) return;
    }
    onState('offline');
    await new Promise((r) => setTimeout(r, retry));
    retry = Math.min(retry * 2, RETRY_MAX_MS);
  }
}
