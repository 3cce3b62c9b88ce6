// Strict SemVer 2.0 as Timoni checks module versions (Masterminds
// StrictNewVersion: no `v` prefix), and precedence for sorting tags.

const STRICT = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

export function isStrictSemver(v: string): boolean {
  return STRICT.test(v);
}

/** A module version Timoni accepts for `mod push`: strict SemVer without `+build` metadata. */
export function isModuleVersion(v: string): boolean {
  return STRICT.test(v) && !v.includes('+');
}

/** SemVer precedence; both must be strict SemVer. */
export function compareSemver(a: string, b: string): number {
  const pa = STRICT.exec(a);
  const pb = STRICT.exec(b);
  if (!pa || !pb) throw new Error(`not strict semver: ${!pa ? a : b}`);
  for (let i = 1; i <= 3; i++) {
    const d = Number(pa[i]) - Number(pb[i]);
    if (d !== 0) return Math.sign(d);
  }
  const ra = pa[4];
  const rb = pb[4];
  if (ra === undefined || rb === undefined) return ra === rb ? 0 : ra === undefined ? 1 : -1;
  const xa = ra.split('.');
  const xb = rb.split('.');
  for (let i = 0; i < Math.max(xa.length, xb.length); i++) {
    const ca = xa[i];
    const cb = xb[i];
    if (ca === undefined) return -1;
    if (cb === undefined) return 1;
    const na = /^\d+$/.test(ca);
    const nb = /^\d+$/.test(cb);
    if (na && nb && Number(ca) !== Number(cb)) return Math.sign(Number(ca) - Number(cb));
    if (na !== nb) return na ? -1 : 1;
    if (ca !== cb) return ca < cb ? -1 : 1;
  }
  return 0;
}
