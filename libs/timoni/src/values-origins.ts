// A build gives CUE the merged values as a generated values.cue, so CUE's
// errors point into text nobody wrote. Those positions are moved to the
// values file that set the field (the last overlay defining it, else the
// module's own values.cue), which then comes first.
import type { CallOptions, CueDiagnostic, CueEngine, CuePosition, MergeValuesRequest } from '@flotilla/cue';

export async function withValuesOrigins(
  cue: CueEngine,
  diags: readonly CueDiagnostic[],
  generated: { path: string; content: string },
  merge: MergeValuesRequest,
  options: { call?: CallOptions; /** Generated values files: a field set there keeps CUE's position. */ untraced?: readonly string[] } = {},
): Promise<CueDiagnostic[]> {
  const key = (p: Pick<CuePosition, 'line' | 'column'>) => `${p.line}:${p.column}`;
  const asked = new Map<string, CuePosition>();
  for (const d of diags) for (const p of d.positions ?? []) if (p.file === generated.path) asked.set(key(p), p);
  if (asked.size === 0) return [...diags];
  const positions = [...asked.values()];
  const origins = await cue.valuesOrigins({ ...merge, overlay: generated, positions }, options.call);
  const found = new Map(positions.map((p, i) => [key(p), origins[i]]));
  return diags.map((d) => {
    const all = d.positions ?? [];
    const user = all.map((p) => (p.file === generated.path ? found.get(key(p)) : undefined)).find((o) => o && o.file && !options.untraced?.includes(o.file));
    if (!user) return d;
    const rest = all.filter((p) => p.file !== generated.path);
    return { ...d, file: user.file, line: user.line, column: user.column, positions: [user, ...rest] };
  });
}
