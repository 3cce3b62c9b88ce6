// What the viewer role does not see of a Project: where its CDEvents go
// beyond the host (paths and queries often carry a webhook's secret), the
// values of annotations the Project marks secret, and the text of failures,
// which quotes what registries and API servers answered. Operators and
// admins, who act on these, see them whole. Applied to response views only.
import type { Principal } from '../auth/roles';
import { roleAllows } from '../auth/roles';
import type { ConditionDto, EventDto, InstanceReportDto, ProjectDto, ReportErrorDto, RunDto, TargetDto } from './projects.views';

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
  if (seesAll(principal)) return p;
  return { ...p, annotations: maskAnnotations(p.annotations), cdeventsSink: p.cdeventsSink === null ? null : maskUrl(p.cdeventsSink) };
}

const seesAll = (principal: Principal | undefined): boolean => principal !== undefined && roleAllows(principal.role, 'operator');

/** A failure without its text: the reason, the step and the object say what failed; an operator reads why. */
function errorForViewer(e: ReportErrorDto): ReportErrorDto {
  return { ...e, message: failureLine(e) };
}

function failureLine(e: Pick<ReportErrorDto, 'reason' | 'step' | 'object'>): string {
  return `${e.reason} at step ${e.step}${e.object ? ` (${e.object})` : ''}; details are shown to operators`;
}

function instanceForViewer(i: InstanceReportDto): InstanceReportDto {
  return i.error ? { ...i, error: errorForViewer(i.error) } : i;
}

/** Only a Ready=True condition's message is plain news; the others quote failures. */
function conditionForViewer(c: ConditionDto): ConditionDto {
  return c.type === 'Ready' && c.status === 'True' ? c : { ...c, message: `${c.reason}; details are shown to operators` };
}

export function runFor(principal: Principal | undefined, r: RunDto): RunDto {
  if (seesAll(principal)) return r;
  const errors = r.errors.map(errorForViewer);
  return { ...r, instances: r.instances.map(instanceForViewer), errors, error: r.error === null ? null : (errors[0]?.message ?? 'failed; details are shown to operators') };
}

export function targetFor(principal: Principal | undefined, t: TargetDto): TargetDto {
  if (seesAll(principal)) return t;
  return {
    ...t,
    conditions: t.conditions.map(conditionForViewer),
    components: t.components.map((c) => ({ ...c, instances: c.instances.map(instanceForViewer), ...(c.error ? { error: errorForViewer(c.error) } : {}) })),
  };
}

/** Warning events tell of failures, in the failure's words. */
export function eventFor(principal: Principal | undefined, e: EventDto): EventDto {
  return seesAll(principal) || e.type !== 'Warning' ? e : { ...e, message: `${e.reason}; details are shown to operators` };
}
