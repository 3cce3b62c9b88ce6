/** "3 min ago", "in 2 h": short relative times, with the exact time left for a title. */
export function relativeTime(iso: string | null, now = Date.now()): string {
  if (!iso) return 'never';
  const delta = Date.parse(iso) - now;
  const abs = Math.abs(delta);
  const [n, unit] = abs < 60_000 ? [Math.round(abs / 1000), 's'] : abs < 3_600_000 ? [Math.round(abs / 60_000), 'min'] : abs < 86_400_000 ? [Math.round(abs / 3_600_000), 'h'] : [Math.round(abs / 86_400_000), 'd'];
  return delta < 0 ? `${n} ${unit} ago` : `in ${n} ${unit}`;
}

export function duration(ms: number | null): string {
  if (ms === null) return '—';
  return ms < 1000 ? `${ms} ms` : ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 60_000)} min`;
}

/** `tag@sha256:0123456789ab…`: enough of the digest to tell revisions apart. */
export function shortRevision(revision: string | null): string {
  if (!revision) return '—';
  const at = revision.indexOf('@sha256:');
  return at < 0 ? revision : `${revision.slice(0, at)}@${revision.slice(at + 8, at + 20)}`;
}
