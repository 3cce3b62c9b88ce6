// What the viewer role does not see of a Project: where its CDEvents go
// beyond the host (paths and queries often carry a webhook's secret) and the
// values of annotations the Project marks secret. Operators and admins, who
// may change these, see them whole. Applied to response views only.
import type { Principal } from '../auth/roles';
import { roleAllows } from '../auth/roles';
import type { ProjectDto } from './projects.views';

/**
 * The annotation that marks others secret: a comma-separated list of keys
 * (e.g. `runtime.timoni.sh/DB_PASSWORD`) whose values viewers must not see.
 * It is not a runtime annotation, so the engine ignores it.
 */
export const SECRET_ANNOTATIONS_KEY = 'flotilla.dev/secret-annotations';
/** What a viewer sees instead of a secret annotation's value. */
export const HIDDEN_VALUE = '(hidden)';

/** `https://sink.example.com/hooks/abc?key=1` → `https://sink.example.com/…`; not a URL → HIDDEN_VALUE. */
export function maskUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return HIDDEN_VALUE;
  }
  const bare = (u.pathname === '/' || u.pathname === '') && u.search === '' && u.hash === '';
  return `${u.protocol}//${u.host}/${bare ? '' : '…'}`;
}

/** The keys SECRET_ANNOTATIONS_KEY lists. */
export function secretAnnotationKeys(annotations: Record<string, string>): Set<string> {
  const list = annotations[SECRET_ANNOTATIONS_KEY] ?? '';
  return new Set(list.split(',').map((k) => k.trim()).filter((k) => k !== ''));
}

/** Annotations with the values of the secret ones hidden. */
export function maskAnnotations(annotations: Record<string, string>): Record<string, string> {
  const secret = secretAnnotationKeys(annotations);
  if (secret.size === 0) return annotations;
  return Object.fromEntries(Object.entries(annotations).map(([k, v]) => [k, secret.has(k) ? HIDDEN_VALUE : v]));
}

/** The Project as `principal` may see it: whole for operators and admins, masked for viewers. */
export function projectFor(principal: Principal | undefined, p: ProjectDto): ProjectDto {
  if (principal && roleAllows(principal.role, 'operator')) return p;
  return { ...p, annotations: maskAnnotations(p.annotations), cdeventsSink: p.cdeventsSink === null ? null : maskUrl(p.cdeventsSink) };
}
