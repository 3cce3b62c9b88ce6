// FLOTILLA_PUBLIC_URL: the status page's address as people reach it (behind
// the ingress), so what the hub sends elsewhere (chat notices) can link back.
// The hub never connects to it; it is only written into messages.

/** The page's base URL without a trailing slash, or a problem naming the variable. */
export function parsePublicUrl(raw: string): { url: string } | { problem: string } {
  const problem = `FLOTILLA_PUBLIC_URL=${JSON.stringify(raw.slice(0, 200))}: expected the status page's http(s) address, e.g. https://flotilla.example.com, with no user, query or fragment`;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return { problem };
  }
  // it is copied into messages people click: nothing in it may carry a secret or a second meaning
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.username || u.password || u.search || u.hash || raw.length > 512) return { problem };
  // trailing slashes trimmed in one backward scan: /\/+$/ is quadratic on a run of slashes
  let end = u.pathname.length;
  while (end > 0 && u.pathname[end - 1] === '/') end--;
  return { url: `${u.origin}${u.pathname.slice(0, end)}` };
}

/** Where the page shows Project `name`. */
export function projectPageUrl(base: string, name: string): string {
  return `${base}/#/projects/${encodeURIComponent(name)}`;
}
