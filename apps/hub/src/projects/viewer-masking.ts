// What the viewer role does not see of a Project: where its CDEvents go
// beyond the host (paths and queries often carry a webhook's secret), the
// values of annotations the Project marks secret, and the text of failures,
// which quotes what registries and API servers answered. Operators and
// admins, who act on these, see them whole; a member sees them whole only
// in the tenants where it is operator. Applied to response views only.
import type { Principal } from '../auth/roles';
import { roleAllows } from '../auth/roles';
import type { DeliveryViewRow } from '../repositories/cdevent-outbox.repository';
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

/** The Project as `principal` may see it: whole for its operators and admins, masked for viewers. */
export function projectFor(principal: Principal | undefined, p: ProjectDto): ProjectDto {
  if (seesAll(principal, p.tenant)) return p;
  return { ...p, annotations: maskAnnotations(p.annotations), cdeventsSink: p.cdeventsSink === null ? null : maskUrl(p.cdeventsSink) };
}

/**
 * Whether `principal` sees a Project of `tenant` whole: a global operator or
 * admin, or an operator of that tenant. A member's `role` is its highest in
 * any tenant, so it never decides alone.
 */
function seesAll(principal: Principal | undefined, tenant: string | undefined): boolean {
  if (!principal) return false;
  if (!principal.tenants) return roleAllows(principal.role, 'operator');
  const held = tenant === undefined ? undefined : principal.tenants[tenant];
  return held !== undefined && roleAllows(held, 'operator');
}

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

/** `tenant`: the run's Project's (ProjectAccess.require's answer). */
export function runFor(principal: Principal | undefined, tenant: string | undefined, r: RunDto): RunDto {
  if (seesAll(principal, tenant)) return r;
  const errors = r.errors.map(errorForViewer);
  return { ...r, instances: r.instances.map(instanceForViewer), errors, error: r.error === null ? null : (errors[0]?.message ?? 'failed; details are shown to operators') };
}

export function targetFor(principal: Principal | undefined, tenant: string | undefined, t: TargetDto): TargetDto {
  if (seesAll(principal, tenant)) return t;
  return {
    ...t,
    conditions: t.conditions.map(conditionForViewer),
    components: t.components.map((c) => ({ ...c, instances: c.instances.map(instanceForViewer), ...(c.error ? { error: errorForViewer(c.error) } : {}) })),
  };
}

/** Warning events tell of failures, in the failure's words. */
export function eventFor(principal: Principal | undefined, tenant: string | undefined, e: EventDto): EventDto {
  return seesAll(principal, tenant) || e.type !== 'Warning' ? e : { ...e, message: `${e.reason}; details are shown to operators` };
}

/** A delivery's error names the sink's whole URL (its path may be the webhook's secret) and quotes its answer. */
export function deliveryFor(principal: Principal | undefined, tenant: string | undefined, d: DeliveryViewRow): DeliveryViewRow {
  return seesAll(principal, tenant) || d.lastError === null ? d : { ...d, lastError: 'the delivery failed; details are shown to operators' };
}
