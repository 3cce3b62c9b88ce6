// Errors of libs/timoni. Each names the project, component, bundle, instance
// or file involved; CUE failures keep their diagnostics (file:line).
import type { CueDiagnostic } from '@flotilla/cue';

/** Base class of every error libs/timoni throws. */
export class TimoniError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** One problem with a position, as aggregated by vet and validation. */
export interface TimoniIssue {
  message: string;
  file?: string;
  line?: number;
  column?: number;
  /** e.g. `component my-app`, `instance podinfo` */
  subject?: string;
}

export function formatIssue(i: TimoniIssue): string {
  const where = i.file ? `${i.file}${i.line ? `:${i.line}${i.column ? `:${i.column}` : ''}` : ''}: ` : '';
  return `${i.subject ? `${i.subject}: ` : ''}${where}${i.message}`;
}

const GENERATED = /(^|\/)(flotilla\.[a-z]+\.schema|timoni\.schema)\.cue$/;

/** Diagnostics as issues, pointing at the user's file rather than our generated schema when CUE gives both. */
/**
 * One root cause often surfaces at every path that references it, and
 * disjunction failures add a header line without position: those headers
 * are dropped and repeats at the same position with the same text merged.
 */
export function issuesFromDiagnostics(
  diags: readonly CueDiagnostic[],
  subject?: string,
  /** Positions of text we generated (beyond GENERATED files), e.g. a schema appended to a user file. */
  generated: (file: string, line: number) => boolean = () => false,
): TimoniIssue[] {
  const ours = (file: string | undefined, line: number | undefined) => !!file && (GENERATED.test(file) || generated(file, line ?? 0));
  const seen = new Set<string>();
  const out: TimoniIssue[] = [];
  const positioned = diags.some((d) => d.file);
  for (const d of diags) {
    if (positioned && /errors in empty disjunction:?$/.test(d.message)) continue;
    const user = ours(d.file, d.line) ? d.positions?.find((p) => !ours(p.file, p.line)) : undefined;
    const at = user ?? { file: d.file, line: d.line, column: d.column };
    const text = d.message.includes(': ') ? d.message.slice(d.message.indexOf(': ') + 2) : d.message;
    const key = `${at.file}:${at.line}:${at.column}:${text}`;
    if (at.file && seen.has(key)) continue;
    seen.add(key);
    out.push({ message: d.message, file: at.file, line: at.line, column: at.column, subject });
  }
  // A value in error makes every interpolation using it fail too: the root
  // causes come first, what follows from them after.
  const derived = (i: TimoniIssue) => / invalid interpolation: /.test(i.message);
  return [...out.filter((i) => !derived(i)), ...out.filter(derived)];
}

/** Several problems found together; `issues` lists each with its position. */
export class TimoniValidationError extends TimoniError {
  readonly issues: TimoniIssue[];
  constructor(what: string, issues: TimoniIssue[], options?: { cause?: unknown }) {
    super(`${what}: ${issues.map(formatIssue).join('; ')}`, options);
    this.issues = issues;
  }
}

/** project.cue is invalid: schema, files, needs, durations. */
export class ProjectError extends TimoniValidationError {}

/** `needs` form a cycle; `cycle` lists it with the first name repeated at the end. */
export class ProjectCycleError extends ProjectError {
  constructor(
    readonly cycle: string[],
    file?: string,
  ) {
    super('project dependency cycle', [{ message: `components form a cycle: ${cycle.join(' -> ')}`, file }]);
  }
}

/** A bundle failed to load, inject or validate. */
export class BundleError extends TimoniValidationError {}

/** A `@timoni(runtime:TYPE:NAME)` attribute could not take its value. */
export class RuntimeAttributeError extends BundleError {}

/** A runtime file failed to load or a query could not be answered. */
export class RuntimeError extends TimoniValidationError {}

/** A module build failed (values, CUE, objects, health checks). */
export class ModuleBuildError extends TimoniValidationError {
  constructor(
    readonly instance: string,
    issues: TimoniIssue[],
    options?: { cause?: unknown },
  ) {
    super(`build of instance ${instance}`, issues, options);
  }
}

/** A module could not be fetched (registry, pin, layout). */
export class ModuleFetchError extends TimoniError {
  constructor(
    readonly url: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`module ${url}: ${message}`, options);
  }
}

/** A module's images.cue does not give valid image references (`timoni mod push` refuses it too). */
export class ModuleImagesError extends TimoniValidationError {
  constructor(issues: TimoniIssue[], options?: { cause?: unknown }) {
    super('images.cue', issues, options);
  }
}
