// Times as people read them in a table: "3m ago", "in 20s".

export function ago(iso: string | null | undefined, now: Date): string {
  if (!iso) return '-';
  const ms = now.getTime() - Date.parse(iso);
  if (Number.isNaN(ms)) return '-';
  return ms >= 0 ? `${span(ms)} ago` : `in ${span(-ms)}`;
}

export function span(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${s % 60 && m < 10 ? `${s % 60}s` : ''}`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h${m % 60 && h < 10 ? `${m % 60}m` : ''}`;
  return `${Math.floor(h / 24)}d`;
}

export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '-';
  return ms < 1000 ? `${ms}ms` : `${(ms / 1000).toFixed(1)}s`;
}
