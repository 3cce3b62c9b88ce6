/**
 * The API server version as Timoni passes it to modules (`kubeVersion` tag
 * variable): without the `v`, pre-release and build suffixes kept, so
 * `v1.30.2+k3s1` → `1.30.2+k3s1`. Unparseable versions are an error.
 */
export function normalizeKubeVersion(gitVersion: string): string {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.exec(gitVersion.trim());
  if (!m) throw new Error(`API server version '${gitVersion}' is not a semantic version`);
  return `${Number(m[1])}.${Number(m[2])}.${Number(m[3] ?? 0)}${m[4] ?? ''}${m[5] ?? ''}`;
}
