// Trailing slashes off a URL or path, without a regex: `/\/+$/` rescans every run of slashes (quadratic).

/** `text` without the slashes it ends with: `https://hub/api//` → `https://hub/api`. */
export function trimTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end--;
  return text.slice(0, end);
}
