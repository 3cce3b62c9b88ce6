// The live stream as a test reads it: open with a token, wait for its hello.

/** Opens the live stream with `token` and reads it until it says hello; `ended` resolves with all it said once the hub ends it. */
export async function openStream(url: string, token: string): Promise<{ text: () => string; ended: Promise<string> }> {
  const res = await fetch(`${url}/api/v1/fleet/events`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`live stream: ${res.status} ${await res.text()}`);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  let hello!: () => void;
  const greeted = new Promise<void>((r) => (hello = r));
  const ended = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return text;
      text += value;
      if (text.includes('event: hello')) hello();
    }
  })();
  await Promise.race([greeted, ended]);
  return { text: () => text, ended };
}
