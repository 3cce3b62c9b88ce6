// Text that came from a remote server, made fit to show: control characters replaced,
// cut to a fixed length. Only fields of the expected protocol are passed through it;
// raw bodies are never shown at all.

/** `text` without control characters, cut to `max` characters with an ellipsis. */
export function boundedText(text: string, max: number): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    out += code < 0x20 || code === 0x7f || (code >= 0x80 && code < 0xa0) ? ' ' : ch;
    if (out.length > max) return `${out.slice(0, max)}…`;
  }
  return out;
}
